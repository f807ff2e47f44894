/**
 * micromark pairs emphasis (`*`, `_`) and GFM strikethrough (`~`) markers by walking back from
 * each closing marker over every earlier event of the paragraph and splicing the paragraph's whole
 * event list once per pair, so a paragraph with n markers costs about n² (a 256 KB paragraph of
 * emphasis took 13 s). This plugin runs the same resolvers on pieces of a long paragraph's events
 * and concatenates the results.
 *
 * That equals one pass over the whole paragraph when no marker left open (unpaired) by one piece
 * could pair with a marker of a later piece: a closer looks back for the nearest opener, finds
 * one in its own piece exactly as it would in the whole, and finds nothing to pair with before its
 * piece when the earlier pieces left no opener. So a piece that ends with an opener left is
 * grown (doubling) until it ends with none; only past MAX_PIECE_EVENTS is it cut anyway, which
 * can leave apart markers CommonMark would pair, and the page gets a warning.
 */
import { attention } from "micromark-core-commonmark";
import type { Data, Processor } from "unified";

type Construct = typeof attention;
type Resolver = NonNullable<Construct["resolveAll"]>;
type Events = Parameters<Resolver>[0];
type Token = Events[number][1];
type Extension = NonNullable<Data["micromarkExtensions"]>[number];

/** Paragraphs with up to twice this many events are resolved whole, as micromark does. */
const PIECE_EVENTS = 2048;
/** Largest piece grown to keep an open marker with what follows it (its cost is about its square). */
const MAX_PIECE_EVENTS = 16_384;

const counters = { resolvedPieces: 0, forcedCuts: 0 };

/** Counts since the last call (pieces resolved separately; cuts made with a marker left open), then resets. */
export function takeInlinePieceCounts(): { resolvedPieces: number; forcedCuts: number } {
  const out = { ...counters };
  counters.resolvedPieces = 0;
  counters.forcedCuts = 0;
  return out;
}

/** unified plugin; use it after remark-gfm, whose strikethrough it replaces. */
export function remarkInlinePieces(this: Processor): void {
  const data = this.data();
  const extensions = (data.micromarkExtensions ??= []);
  const text: NonNullable<Extension["text"]> = {};
  const disable: string[] = [];
  const wrap = (original: Construct, sequenceType: string, sameLength: boolean): Construct => ({
    ...original,
    name: `${original.name}InPieces`,
    resolveAll: inPieces(original.resolveAll!, sequenceType, sameLength),
  });
  const attentionInPieces = wrap(attention, "attentionSequence", false);
  text[42] = attentionInPieces;
  text[95] = attentionInPieces;
  disable.push(attention.name!);
  const strikethrough = findTextConstruct(extensions, 126, "strikethrough");
  if (strikethrough) {
    text[126] = wrap(strikethrough, "strikethroughSequenceTemporary", true);
    disable.push(strikethrough.name!);
  }
  extensions.push({ text, disable: { null: disable } });
}

function findTextConstruct(extensions: readonly Extension[], code: number, name: string): Construct | undefined {
  for (const extension of extensions) {
    const entry = extension.text?.[code];
    const list = Array.isArray(entry) ? entry : entry ? [entry] : [];
    const found = list.find((construct) => construct.name === name && construct.resolveAll);
    if (found) return found as Construct;
  }
  return undefined;
}

function inPieces(resolve: Resolver, sequenceType: string, sameLength: boolean): Resolver {
  return (events, context) => {
    if (events.length <= PIECE_EVENTS * 2) return resolve(events, context);
    // depth[i]: how many tokens are open before events[i]; pieces are cut only where it is 0.
    const depth = new Int32Array(events.length + 1);
    for (let i = 0; i < events.length; i++) depth[i + 1] = depth[i]! + (events[i]![0] === "enter" ? 1 : -1);
    const cutAtOrAfter = (index: number) => {
      let i = index;
      while (i < events.length && !(depth[i] === 0 && events[i]![0] === "enter")) i++;
      return Math.min(i, events.length);
    };

    // A marker left open matters only if a closer that could pair with it follows the cut: one of
    // the same character (emphasis), of the same character and length (strikethrough).
    const key = (token: Token) => (sameLength ? context.sliceSerialize(token) : context.sliceSerialize(token)[0]!);
    const lastCloser = new Map<string, number>();
    for (let i = 0; i < events.length; i++) {
      const [kind, token] = events[i]!;
      if (kind === "enter" && token.type === sequenceType && token._close) lastCloser.set(key(token), i);
    }
    const openerMatters = (token: Token, cut: number) => (lastCloser.get(key(token)) ?? -1) >= cut;

    const out: Events = [];
    let start = 0;
    while (start < events.length) {
      let size = PIECE_EVENTS;
      for (;;) {
        const end = events.length - start <= size * 2 ? events.length : cutAtOrAfter(start + size);
        const piece = events.slice(start, end);
        const saved = snapshot(piece);
        const resolved = resolve(piece, context);
        if (end < events.length && leavesOpener(resolved, sequences(saved, sequenceType), (token) => openerMatters(token, end))) {
          if (end - start < MAX_PIECE_EVENTS) {
            restore(saved);
            size *= 2;
            continue;
          }

          counters.forcedCuts++;
        }
        counters.resolvedPieces++;
        for (const event of resolved) out.push(event);
        start = end;
        break;
      }
    }
    // Callers keep a reference to the paragraph's event list, so the result replaces its contents.
    events.length = 0;
    for (const event of out) events.push(event);
    return events;
  };
}

type Saved = Array<[Token, Token["type"], Token["start"], Token["end"]]>;

/** The resolvers change only the type, start and end of existing tokens; this undoes a trial. */
function snapshot(events: Events): Saved {
  const saved: Saved = [];
  for (const [kind, token] of events) if (kind === "enter") saved.push([token, token.type, token.start, token.end]);
  return saved;
}

function restore(saved: Saved): void {
  for (const [token, type, start, end] of saved) {
    token.type = type;
    token.start = start;
    token.end = end;
  }
}

function sequences(saved: Saved, sequenceType: string): Set<Token> {
  const out = new Set<Token>();
  for (const [token, type] of saved) if (type === sequenceType) out.add(token);
  return out;
}

/**
 * Whether a marker sequence that could still open is left at the top level of a resolved piece
 * (the resolver retypes unpaired sequences "data"; those inside a pair were settled with it).
 */
function leavesOpener(events: Events, sequences: Set<Token>, matters: (token: Token) => boolean): boolean {
  let depth = 0;
  for (const [kind, token] of events) {
    if (kind === "exit") {
      depth--;
      continue;
    }
    if (
      depth === 0 &&
      token._open &&
      token.type === "data" &&
      token.end.offset > token.start.offset &&
      sequences.has(token) &&
      matters(token)
    )
      return true;
    depth++;
  }
  return false;
}
