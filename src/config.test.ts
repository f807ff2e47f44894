import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig: OpenAPI and fetch settings", () => {
  it("defaults to public addresses only and a 6-hour re-fetch", () => {
    const config = loadConfig({});
    expect(config.fetchAllowNetworks).toEqual([]);
    expect(config.openapiRefreshMinutes).toBe(360);
    expect(config.openapiFetchTimeoutMs).toBe(30_000);
    expect(config.openapiMaxBytes).toBe(20 * 1024 * 1024);
    expect(config.openapiMemoryMb).toBe(1024);
  });

  it("reads networks and limits, and names the variable of a wrong value", () => {
    const config = loadConfig({ QUIRE_FETCH_ALLOW_NETWORKS: " 10.0.0.0/8, fd00::/8 ", QUIRE_OPENAPI_REFRESH_MINUTES: "15" });
    expect(config.fetchAllowNetworks).toEqual(["10.0.0.0/8", "fd00::/8"]);
    expect(config.openapiRefreshMinutes).toBe(15);
    for (const network of ["10.0.0.0", "10.0.0.0/33", "intranet/8", "::/129", "10.0.0.0/8/1"]) {
      expect(() => loadConfig({ QUIRE_FETCH_ALLOW_NETWORKS: network })).toThrow(
        new ConfigError(
          `QUIRE_FETCH_ALLOW_NETWORKS must be a comma-separated list of networks such as 10.0.0.0/8 or fd00::/8, got "${network}"`,
        ),
      );
    }
    expect(() => loadConfig({ QUIRE_OPENAPI_REFRESH_MINUTES: "0" })).toThrow(
      'QUIRE_OPENAPI_REFRESH_MINUTES must be an integer between 1 and 525600, got "0"',
    );
  });
});
