#!/usr/bin/env node
// The `quire` command. `npm install` compiles the TypeScript sources to dist/ (prepare script).
import "../dist/cli.js";
