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
const CODEPEN_PLAYER = "https://codepen.io";
const FIGMA_PLAYER = "https://www.figma.com";
const GOOGLE_DOCS_PLAYER = "https://docs.google.com";
const SPOTIFY_PLAYER = "https://open.spotify.com";

/** Where the iframes of `knownEmbed` load from: the `frame-src` of every page that shows rendered content. */
export const EMBED_FRAME_ORIGINS: readonly string[] = [
  YOUTUBE_PLAYER,
  VIMEO_PLAYER,
  LOOM_PLAYER,
  CODEPEN_PLAYER,
  FIGMA_PLAYER,
  GOOGLE_DOCS_PLAYER,
  SPOTIFY_PLAYER,
];

export interface KnownEmbed {
  provider: "youtube" | "vimeo" | "loom" | "codepen" | "figma" | "google-slides" | "spotify";
  src: string;
  title: string;
}

/**
 * Embeds shown as an iframe: only providers whose player URL can be built from a validated id, so
 * the iframe never loads a page the content author chose. Everything else renders as a link card.
 *   - YouTube (youtube.com/watch?v=, youtu.be/, /embed/, /shorts/) -> youtube-nocookie.com player
 *   - Vimeo (vimeo.com/<id>, player.vimeo.com/video/<id>)
 *   - Loom (loom.com/share/<id>, loom.com/embed/<id>)
 *   - CodePen (codepen.io/<user>/pen/<id>) -> its embed, result tab
 *   - Figma (figma.com/file|design|proto|board/<key>) -> figma.com/embed of that file alone
 *   - Google Slides (docs.google.com/presentation/d/<id>) -> the presentation's /embed
 *   - Spotify (open.spotify.com/track|album|playlist|episode|show|artist/<id>) -> open.spotify.com/embed
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
    return undefined;
  }
  if (host === "codepen.io") {
    const pen = /^\/([A-Za-z0-9_-]{1,40})\/(?:pen|full|details|embed)\/([A-Za-z0-9]{3,12})(?:\/|$)/.exec(path);
    if (pen) return { provider: "codepen", src: `${CODEPEN_PLAYER}/${pen[1]}/embed/${pen[2]}?default-tab=result`, title: "CodePen" };
    return undefined;
  }
  if (host === "figma.com") {
    const file = /^\/(file|design|proto|board)\/([A-Za-z0-9]{10,40})(?:\/|$)/.exec(path);
    if (file) {
      // The embed is given the file's canonical address, built from the validated key, never the author's URL.
      const target = encodeURIComponent(`${FIGMA_PLAYER}/${file[1]}/${file[2]}`);
      return { provider: "figma", src: `${FIGMA_PLAYER}/embed?embed_host=quire&url=${target}`, title: "Figma file" };
    }
    return undefined;
  }
  if (host === "docs.google.com") {
    const id = /^\/presentation\/d\/([A-Za-z0-9_-]{20,80})(?:\/|$)/.exec(path)?.[1];
    if (id)
      return { provider: "google-slides", src: `${GOOGLE_DOCS_PLAYER}/presentation/d/${id}/embed`, title: "Google Slides presentation" };
    return undefined;
  }
  if (host === "open.spotify.com") {
    const item = /^\/(?:embed\/)?(track|album|playlist|episode|show|artist)\/([A-Za-z0-9]{22})(?:\/|$)/.exec(path);
    if (item) return { provider: "spotify", src: `${SPOTIFY_PLAYER}/embed/${item[1]}/${item[2]}`, title: "Spotify" };
  }
  return undefined;
}
