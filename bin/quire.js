#!/usr/bin/env node
// The `quire` command. The TypeScript sources are compiled to dist/ by `npm install` (prepare script).
import { main } from "../dist/main.js";

main(process.argv).then(
  (code) => {
    if (typeof code === "number") process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
