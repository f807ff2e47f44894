/**
 * `:shortcode:` emoji. GitBook stores an emoji inline as its code points in hex (`1f3e0` for 🏠).
 * This table covers the shortcodes people commonly type in documentation; an unknown `:name:`
 * stays plain text (so "10:30:00" or `:param:` are never touched). The serializer writes an emoji
 * back as its shortcode when it has one, so imported emoji round-trip; any other emoji is written
 * as the character itself.
 */
const SHORTCODES: Record<string, string> = {
  "+1": "1f44d",
  thumbsup: "1f44d",
  "-1": "1f44e",
  thumbsdown: "1f44e",
  smile: "1f604",
  smiley: "1f603",
  grinning: "1f600",
  wink: "1f609",
  blush: "1f60a",
  joy: "1f602",
  heart: "2764",
  tada: "1f389",
  rocket: "1f680",
  fire: "1f525",
  star: "2b50",
  sparkles: "2728",
  zap: "26a1",
  warning: "26a0",
  x: "274c",
  white_check_mark: "2705",
  heavy_check_mark: "2714",
  check: "2714",
  bulb: "1f4a1",
  memo: "1f4dd",
  pencil: "1f4dd",
  book: "1f4d6",
  books: "1f4da",
  bookmark: "1f516",
  link: "1f517",
  lock: "1f512",
  unlock: "1f513",
  key: "1f511",
  gear: "2699",
  wrench: "1f527",
  hammer: "1f528",
  bug: "1f41b",
  house: "1f3e0",
  globe_with_meridians: "1f310",
  mag: "1f50d",
  eyes: "1f440",
  point_right: "1f449",
  point_left: "1f448",
  point_up: "261d",
  point_down: "1f447",
  wave: "1f44b",
  clap: "1f44f",
  pray: "1f64f",
  muscle: "1f4aa",
  thinking: "1f914",
  question: "2753",
  exclamation: "2757",
  information_source: "2139",
  no_entry: "26d4",
  stop_sign: "1f6d1",
  construction: "1f6a7",
  calendar: "1f4c6",
  clock: "1f570",
  hourglass: "231b",
  package: "1f4e6",
  computer: "1f4bb",
  iphone: "1f4f1",
  email: "1f4e7",
  envelope: "2709",
  bell: "1f514",
  loudspeaker: "1f4e2",
  chart_with_upwards_trend: "1f4c8",
  bar_chart: "1f4ca",
  clipboard: "1f4cb",
  pushpin: "1f4cc",
  paperclip: "1f4ce",
  file_folder: "1f4c1",
  open_file_folder: "1f4c2",
  page_facing_up: "1f4c4",
  100: "1f4af",
  trophy: "1f3c6",
  dart: "1f3af",
  gift: "1f381",
  balloon: "1f388",
  coffee: "2615",
  beers: "1f37b",
  sunny: "2600",
  cloud: "2601",
  umbrella: "2614",
  snowflake: "2744",
  earth_americas: "1f30e",
  arrow_right: "27a1",
  arrow_left: "2b05",
  arrow_up: "2b06",
  arrow_down: "2b07",
  recycle: "267b",
  new: "1f195",
  free: "1f193",
  sos: "1f198",
  ok: "1f197",
  cool: "1f192",
  heavy_plus_sign: "2795",
  heavy_minus_sign: "2796",
  lock_with_ink_pen: "1f50f",
  robot: "1f916",
  brain: "1f9e0",
  test_tube: "1f9ea",
  label: "1f3f7",
  triangular_flag_on_post: "1f6a9",
  checkered_flag: "1f3c1",
  sos_button: "1f198",
};

const CODE_TO_SHORTCODE = new Map<string, string>();
for (const [name, code] of Object.entries(SHORTCODES)) if (!CODE_TO_SHORTCODE.has(code)) CODE_TO_SHORTCODE.set(code, name);

export function emojiCodeForShortcode(name: string): string | undefined {
  return Object.hasOwn(SHORTCODES, name) ? SHORTCODES[name] : undefined;
}

export function shortcodeForEmojiCode(code: string): string | undefined {
  return CODE_TO_SHORTCODE.get(code.toLowerCase());
}

/** `1f44d` or `1f1eb-1f1f7` → the emoji characters; undefined for anything that is not hex code points. */
export function emojiCharacters(code: string): string | undefined {
  const parts = code.split("-");
  if (!parts.every((p) => /^[0-9a-fA-F]{1,6}$/.test(p))) return undefined;
  const points = parts.map((p) => parseInt(p, 16));
  if (points.some((p) => p > 0x10ffff || (p >= 0xd800 && p <= 0xdfff))) return undefined;
  return String.fromCodePoint(...points);
}

/** Matches `:name:` candidates; callers check the name against the table. */
export const SHORTCODE_PATTERN = /:([a-z0-9_+-]{1,40}):/g;
