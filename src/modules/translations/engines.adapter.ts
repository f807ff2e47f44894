/** The configured translation engine (`QUIRE_TRANSLATOR`). */
import type { TranslatorConfig } from "../../config.js";
import { ApertiumTranslator } from "./apertium.adapter.js";
import { LibreTranslateTranslator } from "./libretranslate.adapter.js";
import type { Translator } from "./translator.model.js";

export function translatorFor(config: TranslatorConfig): Translator {
  if (config.engine === "libretranslate") {
    // The configuration refuses `libretranslate` without a URL (src/config.ts).
    if (!config.libreTranslateUrl) throw new Error("QUIRE_LIBRETRANSLATE_URL must be set when QUIRE_TRANSLATOR=libretranslate");
    return new LibreTranslateTranslator(config.libreTranslateUrl, config.libreTranslateApiKey, config.timeoutMs);
  }
  return new ApertiumTranslator({ timeoutMs: config.timeoutMs });
}
