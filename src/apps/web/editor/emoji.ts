/**
 * The emoji picker of the "/" menu's Emoji item: a search field over a built-in list of common
 * emoji with their names, a grid to click or walk with the arrow keys; the chosen one is inserted
 * as the document's emoji inline (`data.code`: its code points in hexadecimal, as GitBook writes them).
 */
import type { Editor } from "@tiptap/core";
import { codeOfEmoji, el } from "./views.js";

/** [emoji, the words it is found by]: its name first. */
export const EMOJI: ReadonlyArray<readonly [string, string]> = [
  ["😀", "grinning face smile happy"],
  ["😃", "smiling face big eyes happy"],
  ["😄", "smiling face smiling eyes laugh"],
  ["😁", "beaming face grin"],
  ["😆", "grinning squinting face laugh"],
  ["😅", "grinning face sweat relief"],
  ["🤣", "rolling on the floor laughing"],
  ["😂", "face with tears of joy laugh"],
  ["🙂", "slightly smiling face"],
  ["🙃", "upside down face"],
  ["😉", "winking face wink"],
  ["😊", "smiling face blush"],
  ["😇", "smiling face with halo angel"],
  ["🥰", "smiling face with hearts love"],
  ["😍", "heart eyes love"],
  ["🤩", "star struck excited"],
  ["😘", "face blowing a kiss"],
  ["😋", "face savoring food yum"],
  ["😛", "face with tongue"],
  ["😜", "winking face with tongue"],
  ["🤪", "zany face crazy"],
  ["🤔", "thinking face hmm"],
  ["🤨", "raised eyebrow doubt"],
  ["😐", "neutral face"],
  ["😑", "expressionless face"],
  ["😶", "face without mouth silent"],
  ["🙄", "rolling eyes"],
  ["😏", "smirking face"],
  ["😬", "grimacing face awkward"],
  ["😌", "relieved face"],
  ["😔", "pensive face sad"],
  ["😪", "sleepy face"],
  ["😴", "sleeping face zzz"],
  ["😷", "face with medical mask sick"],
  ["🤒", "face with thermometer ill"],
  ["🤯", "exploding head mind blown"],
  ["🥳", "partying face celebrate party"],
  ["😎", "smiling face with sunglasses cool"],
  ["🤓", "nerd face glasses"],
  ["🧐", "face with monocle inspect"],
  ["😕", "confused face"],
  ["😟", "worried face"],
  ["🙁", "slightly frowning face"],
  ["😮", "face with open mouth surprised"],
  ["😲", "astonished face shocked"],
  ["😳", "flushed face embarrassed"],
  ["🥺", "pleading face"],
  ["😢", "crying face sad tear"],
  ["😭", "loudly crying face sob"],
  ["😱", "face screaming in fear scared"],
  ["😤", "face with steam angry"],
  ["😡", "pouting face angry rage"],
  ["🤬", "face with symbols on mouth swear"],
  ["💀", "skull dead"],
  ["💩", "pile of poo"],
  ["🤖", "robot bot"],
  ["👻", "ghost"],
  ["👽", "alien"],
  ["👋", "waving hand hello wave"],
  ["🤚", "raised back of hand"],
  ["✋", "raised hand stop"],
  ["👌", "ok hand"],
  ["✌", "victory hand peace"],
  ["🤞", "crossed fingers luck"],
  ["👍", "thumbs up yes like approve"],
  ["👎", "thumbs down no dislike"],
  ["👏", "clapping hands applause"],
  ["🙌", "raising hands celebrate hooray"],
  ["🙏", "folded hands please thanks pray"],
  ["💪", "flexed biceps strong muscle"],
  ["👀", "eyes look see"],
  ["🧠", "brain think"],
  ["👉", "backhand index pointing right"],
  ["👈", "backhand index pointing left"],
  ["👆", "backhand index pointing up"],
  ["👇", "backhand index pointing down"],
  ["☝", "index pointing up"],
  ["❤", "red heart love"],
  ["🧡", "orange heart"],
  ["💛", "yellow heart"],
  ["💚", "green heart"],
  ["💙", "blue heart"],
  ["💜", "purple heart"],
  ["🖤", "black heart"],
  ["💔", "broken heart"],
  ["✨", "sparkles shiny new"],
  ["⭐", "star favourite"],
  ["🌟", "glowing star"],
  ["🔥", "fire hot lit"],
  ["💥", "collision boom"],
  ["💡", "light bulb idea tip"],
  ["📌", "pushpin pin"],
  ["📎", "paperclip attachment"],
  ["🔗", "link chain"],
  ["🔒", "locked lock secure"],
  ["🔓", "unlocked open"],
  ["🔑", "key password"],
  ["🛠", "hammer and wrench tools"],
  ["🔧", "wrench fix tool"],
  ["🔨", "hammer build"],
  ["⚙", "gear settings cog"],
  ["🧰", "toolbox"],
  ["🧪", "test tube experiment"],
  ["🐛", "bug insect defect"],
  ["🚀", "rocket launch ship deploy"],
  ["📦", "package box release"],
  ["🏗", "building construction work in progress"],
  ["📝", "memo note write"],
  ["📄", "page facing up document"],
  ["📚", "books docs library"],
  ["📖", "open book read"],
  ["📊", "bar chart statistics"],
  ["📈", "chart increasing growth"],
  ["📉", "chart decreasing"],
  ["📅", "calendar date"],
  ["⏰", "alarm clock time"],
  ["⏳", "hourglass waiting"],
  ["✅", "check mark button done yes"],
  ["☑", "check box with check"],
  ["✔", "check mark"],
  ["❌", "cross mark no wrong"],
  ["❎", "cross mark button"],
  ["⚠", "warning caution"],
  ["⛔", "no entry stop"],
  ["🚫", "prohibited forbidden"],
  ["❓", "question mark"],
  ["❗", "exclamation mark important"],
  ["ℹ", "information info"],
  ["💬", "speech balloon comment chat"],
  ["💭", "thought balloon"],
  ["📣", "megaphone announce"],
  ["🔔", "bell notification"],
  ["🔍", "magnifying glass search find"],
  ["🏁", "chequered flag finish"],
  ["🎉", "party popper celebrate tada"],
  ["🎁", "wrapped gift present"],
  ["🏆", "trophy win award"],
  ["🎯", "direct hit target goal"],
  ["🧩", "puzzle piece"],
  ["🎨", "artist palette design"],
  ["🖥", "desktop computer"],
  ["💻", "laptop computer"],
  ["📱", "mobile phone"],
  ["⌨", "keyboard"],
  ["🖱", "computer mouse"],
  ["💾", "floppy disk save"],
  ["☁", "cloud"],
  ["🌍", "globe europe africa world"],
  ["🌎", "globe americas world"],
  ["🌏", "globe asia australia world"],
  ["🌐", "globe with meridians internet web"],
  ["🏠", "house home"],
  ["🏢", "office building company"],
  ["🌈", "rainbow"],
  ["☀", "sun sunny"],
  ["🌙", "crescent moon night"],
  ["⚡", "high voltage lightning fast"],
  ["❄", "snowflake cold"],
  ["🌊", "water wave ocean"],
  ["🌱", "seedling growth new"],
  ["🌳", "deciduous tree"],
  ["🍀", "four leaf clover luck"],
  ["🌸", "cherry blossom flower"],
  ["☕", "hot beverage coffee tea"],
  ["🍕", "pizza"],
  ["🍰", "shortcake cake"],
  ["🐶", "dog face"],
  ["🐱", "cat face"],
  ["🦊", "fox"],
  ["🐻", "bear"],
  ["🐼", "panda"],
  ["🐧", "penguin"],
  ["🐢", "turtle slow"],
  ["🦄", "unicorn"],
  ["🐝", "honeybee bee"],
  ["💯", "hundred points perfect"],
  ["➕", "plus add"],
  ["➖", "minus remove"],
  ["➡", "right arrow"],
  ["⬅", "left arrow"],
  ["⬆", "up arrow"],
  ["⬇", "down arrow"],
  ["🔄", "counterclockwise arrows refresh sync"],
  ["🆕", "new button"],
  ["🆗", "ok button"],
  ["🔴", "red circle"],
  ["🟢", "green circle"],
  ["🟡", "yellow circle"],
  ["🔵", "blue circle"],
];

/** The emoji whose words start with every word of `query` (all of them for an empty query). */
export function searchEmoji(query: string): Array<readonly [string, string]> {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...EMOJI];
  return EMOJI.filter(([char, names]) => {
    const own = names.split(" ");
    return words.every((word) => word === char || own.some((name) => name.startsWith(word)));
  });
}

let openPicker: (() => void) | undefined;

/** Opens the picker under the caret; the chosen emoji goes where the caret was. */
export function openEmojiPicker(editor: Editor): void {
  openPicker?.();
  const at = editor.state.selection.from;
  const coords = editor.view.coordsAtPos(at);
  const search = el("input", {
    type: "search",
    class: "qe-field qe-emoji-search",
    "aria-label": "Search emoji",
    placeholder: "Search emoji…",
  });
  const grid = el("div", { class: "qe-emoji-grid", role: "listbox", "aria-label": "Emoji" });
  const empty = el("p", { class: "qe-menu-empty", hidden: "" }, "No emoji has that name");
  const popup = el("div", { class: "qe-popover qe-emoji-picker", role: "dialog", "aria-label": "Insert an emoji" }, search, grid, empty);
  popup.style.left = `${coords.left + window.scrollX}px`;
  popup.style.top = `${coords.bottom + window.scrollY + 4}px`;
  let shown: Array<readonly [string, string]> = [];
  let selected = 0;

  const close = (refocus: boolean) => {
    // The editor takes the focus before the picker's field leaves the page: Tiptap's focus command
    // moves it only on the next animation frame, and keys typed until then (a fast typist, a busy
    // machine) went to the page's body and were lost.
    if (refocus) editor.view.focus();
    popup.remove();
    document.removeEventListener("mousedown", outside, true);
    openPicker = undefined;
    if (refocus) editor.commands.focus(at);
  };
  const outside = (event: MouseEvent) => {
    if (!(event.target instanceof Node && popup.contains(event.target))) close(false);
  };
  const choose = (char: string) => {
    close(true);
    editor
      .chain()
      .focus(at)
      .insertContentAt(at, { type: "emoji", attrs: { data: { code: codeOfEmoji(char) } } })
      .run();
  };
  const render = () => {
    shown = searchEmoji(search.value);
    selected = Math.min(selected, Math.max(0, shown.length - 1));
    empty.hidden = shown.length > 0;
    grid.replaceChildren(
      ...shown.map(([char, names], index) => {
        const name = names.split(" ").slice(0, 4).join(" ");
        const button = el(
          "button",
          {
            type: "button",
            role: "option",
            class: "qe-emoji",
            title: name,
            "aria-label": name,
            "aria-selected": String(index === selected),
          },
          char,
        );
        button.addEventListener("mousedown", (event) => {
          event.preventDefault();
          choose(char);
        });
        return button;
      }),
    );
    grid.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: "nearest" });
  };
  search.addEventListener("input", () => {
    selected = 0;
    render();
  });
  search.addEventListener("keydown", (event) => {
    const columns = 8;
    const move = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns }[event.key];
    if (move !== undefined && shown.length) {
      event.preventDefault();
      selected = Math.min(shown.length - 1, Math.max(0, selected + move));
      render();
    } else if (event.key === "Enter") {
      event.preventDefault();
      const pick = shown[selected];
      if (pick) choose(pick[0]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(true);
    }
  });
  document.body.append(popup);
  document.addEventListener("mousedown", outside, true);
  openPicker = () => close(false);
  render();
  search.focus();
}
