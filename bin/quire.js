#!/usr/bin/env -S node --max-semi-space-size=4
// The `quire` command. `npm install` compiles the TypeScript sources to dist/ (prepare script).
// --max-semi-space-size=4: a young generation of ~12 MB instead of V8's 48 MB. A Git import's
// burst of short-lived objects otherwise fills the full 48 MB and promotes much of it: the server's
// peak RSS on a 930-page import was 367-403 MB, with 4 MB semi-spaces 314-340 MB, with no
// measurable change in request throughput (docs/git-import.md). `npm start` passes the same flag.
import "../dist/cli.js";
