/** The two engines for real: Apertium from Debian's packages (.ci/run installs apertium-eng-spa), and LibreTranslate's API over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLibreTranslate, startFakeLibreTranslate } from "../../../test/helpers/libretranslate.js";
import { loadConfig } from "../../config.js";
import { DomainError } from "../../lib/errors.js";
import { ApertiumTranslator, decodeBatch, encodeBatch, keepInitialCase, pairsOfModes } from "./apertium.adapter.js";
import { translatorFor } from "./engines.adapter.js";
import { LibreTranslateTranslator } from "./libretranslate.adapter.js";
import { requirePair, TranslatorError } from "./translator.model.js";

describe("Apertium", () => {
  const apertium = new ApertiumTranslator({ timeoutMs: 60_000 });

  it("lists the installed pairs in TranslationLanguage codes", async () => {
    const pairs = await apertium.pairs();
    expect(pairs).toEqual(
      expect.arrayContaining([
        { from: "en", to: "es" },
        { from: "es", to: "en" },
      ]),
    );
  });

  it("maps Apertium's modes (ISO 639-3, variants) to pairs and ignores the others", () => {
    expect(pairsOfModes(["eng-spa", "spa-eng_US", "spa-por_BR", "nob-nno", "eng-spa-morph", "xyz-abc"])).toEqual([
      { from: "en", to: "es", mode: "eng-spa" },
      { from: "es", to: "en", mode: "spa-eng_US" },
      { from: "es", to: "pt-br", mode: "spa-por_BR" },
    ]);
  });

  it("translates a batch of segments, one output per input, in order, with markup-like text kept as text", async () => {
    const out = await apertium.translate({ from: "en", to: "es" }, [
      "The cat is big.",
      "Click the button",
      "Use a < b & c > d",
      "The house\nis red.",
      "Hello world",
    ]);
    expect(out).toEqual(["El gato es grande.", "Clic el botón", expect.stringContaining("< b & c > d"), "La casa\nes roja.", "Hola Mundo"]);
  });

  it("translates thousands of segments in batches", async () => {
    const segments = Array.from({ length: 3000 }, (_, i) => (i % 2 ? "The red house" : "I have a dog"));
    const out = await apertium.translate({ from: "en", to: "es" }, segments);
    expect(out).toHaveLength(3000);
    expect(out[0]).toBe("Tengo un perro");
    expect(out[2999]).toBe("La casa roja");
  });

  it("answers a 400 naming the installed pairs for a pair that is not installed", async () => {
    const error = await requirePair(apertium, { from: "en", to: "ja" }).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.kind).toBe("invalid");
    expect(error.message).toMatch(
      /^The language pair en → ja is not installed for apertium\. Installed pairs: .*en → es.*\. Install the pair's Debian package/,
    );
  });

  it("fails clearly when the program is missing or times out", async () => {
    const missing = new ApertiumTranslator({ command: "/nonexistent/apertium", timeoutMs: 1000 });
    expect(await missing.pairs()).toEqual([]);
    await expect(missing.translate({ from: "en", to: "es" }, ["x"])).rejects.toThrow("Apertium has no en → es pair installed.");
  });

  it("stops when the run is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(apertium.translate({ from: "en", to: "es" }, ["The cat"], controller.signal)).rejects.toThrow();
  });

  it("keeps a mid-sentence segment in lower case (Apertium starts a sentence after each separator)", async () => {
    expect(await apertium.translate({ from: "en", to: "es" }, ["then run the command", "The house"])).toEqual([
      "entonces corrido la orden",
      "La casa",
    ]);
    expect(keepInitialCase("then", "Entonces")).toBe("entonces");
    expect(keepInitialCase("Then", "Entonces")).toBe("Entonces");
    expect(keepInitialCase("42 Items", "42 Artículos")).toBe("42 Artículos");
    expect(keepInitialCase("42 items", "42 Artículos")).toBe("42 artículos");
    expect(keepInitialCase("1. then", "1. Entonces")).toBe("1. entonces");
  });

  it("checks that every separator came back in order", () => {
    expect(decodeBatch(encodeBatch(["a &amp; b", "c"]), 2)).toEqual(["a &amp; b", "c"]);
    expect(() => decodeBatch('<hr data-q="0">a<hr data-q="2">b', 2)).toThrow(TranslatorError);
    expect(() => decodeBatch('<hr data-q="0">a', 2)).toThrow("Apertium returned 1 segments for 2.");
  });
});

describe("LibreTranslate", () => {
  let service: FakeLibreTranslate;
  beforeAll(async () => {
    service = await startFakeLibreTranslate({ apiKey: "secret-key" });
  });
  afterAll(() => service.close());

  it("lists pairs from /languages, mapping the service's codes", async () => {
    const translator = new LibreTranslateTranslator(service.url, "secret-key", 5000);
    expect(await translator.pairs()).toEqual([
      { from: "en", to: "es" },
      { from: "en", to: "fr" },
      { from: "en", to: "pt-br" },
      { from: "es", to: "en" },
      { from: "fr", to: "en" },
      { from: "pt-br", to: "en" },
    ]);
  });

  it("translates in batches of at most 100 texts, with the API key, in order", async () => {
    const translator = new LibreTranslateTranslator(service.url, "secret-key", 5000);
    service.requests.length = 0;
    const segments = Array.from({ length: 250 }, (_, i) => `text ${i}`);
    const out = await translator.translate({ from: "en", to: "pt-br" }, segments);
    expect(out).toEqual(segments.map((s) => `[pt-BR] ${s}`));
    expect(service.requests.map((r) => r.length)).toEqual([100, 100, 50]);
  });

  it("reports the service's errors and timeouts", async () => {
    const wrongKey = new LibreTranslateTranslator(service.url, "wrong", 5000);
    await expect(wrongKey.translate({ from: "en", to: "es" }, ["x"])).rejects.toThrow("LibreTranslate answered 403: Invalid API key");
    const translator = new LibreTranslateTranslator(service.url, "secret-key", 1000);
    await expect(translator.translate({ from: "es", to: "fr" }, ["x"])).rejects.toThrow("LibreTranslate does not translate es → fr.");
    service.requests.length = 0;
    service.failFrom = 1;
    service.hang = true;
    await expect(translator.translate({ from: "en", to: "es" }, ["x"])).rejects.toThrow(/did not answer within 1000 ms/);
    service.failFrom = undefined;
    service.hang = false;
    const unreachable = new LibreTranslateTranslator("http://127.0.0.1:9", undefined, 1000);
    await expect(unreachable.pairs()).rejects.toThrow(/Could not reach LibreTranslate at http:\/\/127\.0\.0\.1:9/);
  });
});

describe("configuration", () => {
  it("reads the engine from the environment and refuses what cannot work", () => {
    expect(loadConfig({}).translator).toEqual({
      engine: "apertium",
      libreTranslateUrl: undefined,
      libreTranslateApiKey: undefined,
      timeoutMs: 120_000,
    });
    const libre = loadConfig({
      QUIRE_TRANSLATOR: "libretranslate",
      QUIRE_LIBRETRANSLATE_URL: "http://translate.internal:5000/",
      QUIRE_LIBRETRANSLATE_API_KEY: "k",
      QUIRE_TRANSLATOR_TIMEOUT_MS: "5000",
    }).translator;
    expect(libre).toEqual({
      engine: "libretranslate",
      libreTranslateUrl: "http://translate.internal:5000",
      libreTranslateApiKey: "k",
      timeoutMs: 5000,
    });
    expect(translatorFor(libre)).toBeInstanceOf(LibreTranslateTranslator);
    expect(translatorFor(loadConfig({}).translator)).toBeInstanceOf(ApertiumTranslator);
    expect(() => loadConfig({ QUIRE_TRANSLATOR: "google" })).toThrow('QUIRE_TRANSLATOR must be apertium or libretranslate, got "google"');
    expect(() => loadConfig({ QUIRE_TRANSLATOR: "libretranslate" })).toThrow(
      "QUIRE_LIBRETRANSLATE_URL must be set when QUIRE_TRANSLATOR=libretranslate",
    );
    expect(() => loadConfig({ QUIRE_LIBRETRANSLATE_URL: "ftp://x" })).toThrow("QUIRE_LIBRETRANSLATE_URL must use http: or https:");
  });
});
