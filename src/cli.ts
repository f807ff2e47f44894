/** Process entry of the `quire` command (bin/quire.js loads the compiled copy of this file). */
import { main } from "./main.js";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
