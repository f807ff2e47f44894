/**
 * Which URLs content may point at. Links accept web, mail and phone URLs and relative ones; media
 * (images, downloads) only web URLs and relative ones. Anything else — `javascript:`, `data:`,
 * `vbscript:`, a scheme hidden behind control characters — is refused, and the caller renders the
 * text without a link.
 */
const LINK_SCHEMES = new Set(["http", "https", "mailto", "tel"]);
const MEDIA_SCHEMES = new Set(["http", "https"]);

function allowed(url: string, schemes: ReadonlySet<string>): string | undefined {
  // Browsers drop these characters before reading a scheme, so "java\tscript:" is still javascript:.
  const cleaned = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  if (cleaned === "") return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(cleaned);
  if (scheme) return schemes.has(scheme[1]!.toLowerCase()) ? url.trim() : undefined;
  // No scheme: relative, but a leading "\\" or "//" is protocol-relative, which is fine for http(s).
  return url.trim();
}

export function safeLinkUrl(url: string | undefined): string | undefined {
  return url === undefined ? undefined : allowed(url, LINK_SCHEMES);
}

export function safeMediaUrl(url: string | undefined): string | undefined {
  return url === undefined ? undefined : allowed(url, MEDIA_SCHEMES);
}

const YOUTUBE_PLAYER = "https://www.youtube-nocookie.com";
const VIMEO_PLAYER = "https://player.vimeo.com";
const LOOM_PLAYER = "https://www.loom.com";

/** Where the iframes of `knownEmbed` load from: the `frame-src` of every page that shows rendered content. */
export const EMBED_FRAME_ORIGINS: readonly string[] = [YOUTUBE_PLAYER, VIMEO_PLAYER, LOOM_PLAYER];

export interface KnownEmbed {
  provider: "youtube" | "vimeo" | "loom";
  src: string;
  title: string;
}

/**
 * Embeds shown as an iframe: only providers whose player URL can be built from a validated id, so
 * the iframe never loads a page the content author chose. Everything else renders as a link card.
 *   - YouTube (youtube.com/watch?v=, youtu.be/, /embed/, /shorts/) -> youtube-nocookie.com player
 *   - Vimeo (vimeo.com/<id>, player.vimeo.com/video/<id>)
 *   - Loom (loom.com/share/<id>, loom.com/embed/<id>)
 */
export function knownEmbed(url: string): KnownEmbed | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  const host = parsed.hostname.toLowerCase().replace(/^(www\.|m\.)/, "");
  const path = parsed.pathname;
  if (host === "youtube.com" || host === "youtube-nocookie.com" || host === "youtu.be") {
    const id =
      host === "youtu.be"
        ? path.slice(1)
        : path === "/watch"
          ? (parsed.searchParams.get("v") ?? "")
          : (/^\/(?:embed|shorts|live)\/([^/]+)/.exec(path)?.[1] ?? "");
    if (/^[A-Za-z0-9_-]{6,20}$/.test(id)) return { provider: "youtube", src: `${YOUTUBE_PLAYER}/embed/${id}`, title: "YouTube video" };
    return undefined;
  }
  if (host === "vimeo.com" || host === "player.vimeo.com") {
    const id = /^\/(?:video\/)?(\d{1,12})(?:\/|$)/.exec(path)?.[1];
    if (id) return { provider: "vimeo", src: `${VIMEO_PLAYER}/video/${id}`, title: "Vimeo video" };
    return undefined;
  }
  if (host === "loom.com") {
    const id = /^\/(?:share|embed)\/([a-f0-9]{16,64})(?:\/|$)/.exec(path)?.[1];
    if (id) return { provider: "loom", src: `${LOOM_PLAYER}/embed/${id}`, title: "Loom video" };
  }
  return undefined;
}
