/**
 * GitBook's JSON document model (`JSONDocument` in @gitbook/api 0.146.0, spec/openapi.json), as
 * TypeScript types. Field names, optionality and enums mirror the spec's schemas of the same name;
 * the tests validate every document the converter produces against the spec itself, so these types
 * are a convenience for the compiler, not the source of truth.
 */

export type TextColor =
  | "default"
  | "green"
  | "blue"
  | "red"
  | "orange"
  | "yellow"
  | "purple"
  | "$primary"
  | "$info"
  | "$success"
  | "$warning"
  | "$danger";

export type DocumentMark =
  | { object: "mark"; type: "bold" | "italic" | "code" | "keyboard" | "strikethrough" | "superscript" | "subscript" }
  | { object: "mark"; type: "color"; data: { text: TextColor; background: TextColor } };

export type DocumentMarkType = DocumentMark["type"];

export interface DocumentTextLeaf {
  object: "leaf";
  text: string;
  marks: DocumentMark[];
}

export interface DocumentText {
  object: "text";
  key?: string;
  leaves: DocumentTextLeaf[];
}

export interface ContentRefURL {
  kind: "url";
  url: string;
}
export interface ContentRefFile {
  kind: "file";
  file: string;
}
export interface ContentRefPage {
  kind: "page";
  page: string;
  space?: string;
}
export interface ContentRefAnchor {
  kind: "anchor";
  anchor: string;
  space?: string;
  page?: string;
}
export interface ContentRefUser {
  kind: "user";
  user: string;
}
export interface ContentRefCollection {
  kind: "collection";
  collection: string;
}
export interface ContentRefSpace {
  kind: "space";
  space: string;
}
export interface ContentRefReusableContent {
  kind: "reusable-content";
  reusableContent: string;
  space?: string;
}
export interface ContentRefOpenAPI {
  kind: "openapi";
  spec: string;
}
export type ContentRef =
  | ContentRefFile
  | ContentRefURL
  | ContentRefPage
  | ContentRefAnchor
  | ContentRefUser
  | ContentRefCollection
  | ContentRefSpace
  | ContentRefReusableContent
  | ContentRefOpenAPI;

export type ImageRef = ContentRefURL | ContentRefFile;

/** Length as the spec's `Length`: pixels, or a value with a unit such as `%`. */
export type Length = number | { unit: string; value: number };

// ---- inlines ---------------------------------------------------------------------------------

export interface DocumentInlineImage {
  object: "inline";
  type: "inline-image";
  key?: string;
  isVoid: true;
  data: { ref: ImageRef; refDark?: ImageRef; caption?: string; alt?: string; size?: "original" | "line" };
}

export interface DocumentInlineLink {
  object: "inline";
  type: "link";
  key?: string;
  isVoid?: false;
  nodes: Array<DocumentText | DocumentInlineImage>;
  data: { ref: ContentRef };
}

export interface DocumentInlineEmoji {
  object: "inline";
  type: "emoji";
  key?: string;
  isVoid: true;
  data: { code: string };
}

export interface DocumentInlineIcon {
  object: "inline";
  type: "icon";
  key?: string;
  isVoid: true;
  data: { icon: string; color?: TextColor };
}

export interface DocumentInlineExpression {
  object: "inline";
  type: "expression";
  key?: string;
  isVoid: true;
  data: { expression: string };
}

export interface DocumentInlineMath {
  object: "inline";
  type: "inline-math";
  key?: string;
  isVoid: true;
  data: { formula: string };
}

export interface DocumentInlineMention {
  object: "inline";
  type: "mention";
  key?: string;
  isVoid: true;
  data: { ref: ContentRef };
}

export interface DocumentInlineButton {
  object: "inline";
  type: "button";
  key?: string;
  isVoid: true;
  data: { label: string; kind: "primary" | "secondary"; icon?: string; ref: ContentRef };
}

export interface AnnotationBodyFragment {
  object: "fragment";
  key?: string;
  fragment?: string;
  type: "annotation-body";
  nodes: Array<DocumentBlockEssential | DocumentBlockCode>;
}

export interface DocumentInlineAnnotation {
  object: "inline";
  type: "annotation";
  key?: string;
  isVoid: false;
  nodes: DocumentText[];
  fragments: AnnotationBodyFragment[];
  data?: Record<string, never>;
}

export type DocumentInline =
  | DocumentInlineLink
  | DocumentInlineEmoji
  | DocumentInlineIcon
  | DocumentInlineExpression
  | DocumentInlineMath
  | DocumentInlineImage
  | DocumentInlineAnnotation
  | DocumentInlineMention
  | DocumentInlineButton;

export type InlineContent = DocumentText | DocumentInline;

// ---- blocks ----------------------------------------------------------------------------------

export type TextAlignment = "start" | "center" | "end";

export interface DocumentBlockParagraph {
  object: "block";
  type: "paragraph";
  key?: string;
  isVoid?: false;
  nodes: InlineContent[];
  data?: { align?: TextAlignment };
}

export interface DocumentBlockHeading {
  object: "block";
  type: "heading-1" | "heading-2" | "heading-3";
  key?: string;
  isVoid?: false;
  nodes: InlineContent[];
  data: { id?: string; align?: TextAlignment };
  meta?: { id: string };
}

export type ListItemChild =
  | DocumentBlockEssential
  | DocumentBlockCode
  | DocumentBlockHint
  | DocumentBlockQuote
  | DocumentBlockMath
  | DocumentBlockTable;

export interface DocumentBlockListItem {
  object: "block";
  type: "list-item";
  key?: string;
  isVoid?: false;
  nodes: ListItemChild[];
  data?: { checked?: boolean };
}

export interface DocumentBlockListOrdered {
  object: "block";
  type: "list-ordered";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockListItem[];
  data: { start?: number };
}

export interface DocumentBlockListUnordered {
  object: "block";
  type: "list-unordered";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockListItem[];
  data?: Record<string, never>;
}

export interface DocumentBlockListTasks {
  object: "block";
  type: "list-tasks";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockListItem[];
  data?: Record<string, never>;
}

export interface DocumentBlockDivider {
  object: "block";
  type: "divider";
  key?: string;
  isVoid: true;
  data: Record<string, never>;
}

export type DocumentBlockList = DocumentBlockListOrdered | DocumentBlockListUnordered | DocumentBlockListTasks;

/** `DocumentBlocksEssentials`: what every container accepts. */
export type DocumentBlockEssential = DocumentBlockParagraph | DocumentBlockHeading | DocumentBlockList | DocumentBlockDivider;

export interface DocumentBlockCodeLine {
  object: "block";
  type: "code-line";
  key?: string;
  isVoid?: false;
  nodes: Array<DocumentText | DocumentInlineAnnotation | DocumentInlineExpression>;
  data: { highlighted?: boolean };
}

export interface DocumentBlockCode {
  object: "block";
  type: "code";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockCodeLine[];
  data: {
    syntax?: string;
    title?: string;
    overflow?: "scroll" | "wrap";
    lineNumbers?: boolean;
    fullWidth?: boolean;
    expandable?: boolean;
    collapsedLineCount?: number;
  };
}

export type HintStyle = "info" | "warning" | "danger" | "success";

export interface DocumentBlockHint {
  object: "block";
  type: "hint";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockEssential[];
  /**
   * `icon` is not declared by the 0.146 schema (which leaves `data` open): GitBook's Markdown has
   * `{% hint icon="..." %}`, and keeping it here lets it round-trip.
   */
  data: { style: HintStyle; icon?: string };
}

export interface DocumentBlockQuote {
  object: "block";
  type: "blockquote";
  key?: string;
  isVoid?: false;
  nodes: Array<DocumentBlockEssential | DocumentBlockQuote>;
  data?: Record<string, never>;
}

export interface DocumentBlockMath {
  object: "block";
  type: "math";
  key?: string;
  isVoid: true;
  data: { formula: string };
}

export interface DocumentFragment {
  object: "fragment";
  key?: string;
  fragment?: string;
  type?: string;
  nodes: DocumentBlock[];
}

export interface ImageCaptionFragment {
  object: "fragment";
  key?: string;
  fragment: "caption";
  type?: string;
  nodes: DocumentBlockParagraph[];
}

export interface DocumentBlockImage {
  object: "block";
  type: "image";
  key?: string;
  isVoid: true;
  data: { ref: ImageRef; refDark?: ImageRef; width?: Length; height?: Length; alt?: string };
  fragments: ImageCaptionFragment[];
}

export interface DocumentBlockImages {
  object: "block";
  type: "images";
  key?: string;
  isVoid: false;
  nodes: DocumentBlockImage[];
  data: { align?: "center" | "left" | "right"; fullWidth?: boolean; withFrame?: boolean };
}

export interface DocumentBlockFile {
  object: "block";
  type: "file";
  key?: string;
  isVoid: true;
  data: { ref: ContentRefFile };
}

export interface DocumentBlockDrawing {
  object: "block";
  type: "drawing";
  key?: string;
  isVoid: true;
  data: { ref?: ContentRefFile };
}

export interface DocumentBlockEmbed {
  object: "block";
  type: "embed";
  key?: string;
  isVoid: true;
  data: { url: string; fullWidth?: boolean };
}

export interface DocumentBlockReusableContent {
  object: "block";
  type: "reusable-content";
  key?: string;
  isVoid: true;
  data: { ref: ContentRefReusableContent };
  meta?: { token?: string };
}

export interface ExpandableTitleFragment {
  object: "fragment";
  key?: string;
  fragment: "expandable-title";
  type: "expandable-title";
  nodes: [DocumentBlockParagraph];
}

export type ExpandableBodyChild =
  | DocumentBlockEssential
  | DocumentBlockImages
  | DocumentBlockCode
  | DocumentBlockTable
  | DocumentBlockHint
  | DocumentBlockQuote
  | DocumentBlockReusableContent;

export interface ExpandableBodyFragment {
  object: "fragment";
  key?: string;
  fragment: "expandable-body";
  type: "expandable-body";
  nodes: ExpandableBodyChild[];
}

export interface DocumentBlockExpandable {
  object: "block";
  type: "expandable";
  key?: string;
  isVoid: true;
  data: Record<string, never>;
  fragments: Array<ExpandableTitleFragment | ExpandableBodyFragment>;
  meta?: { id: string };
}

export interface DocumentBlockContentRef {
  object: "block";
  type: "content-ref";
  key?: string;
  isVoid: true;
  data: { ref: ContentRef };
}

export type PlainValue = string | boolean | number | PlainObject | Array<string | boolean | number | PlainObject>;
export interface PlainObject {
  [key: string]: PlainValue;
}

export interface DocumentBlockIntegration {
  object: "block";
  type: "integration";
  key?: string;
  isVoid: true;
  data: { integration: string; block: string; props: PlainObject; url?: string; fullWidth?: boolean };
}

/** Blocks a tab or a stepper step may hold (the two schemas list the same set). */
export type TabChild =
  | DocumentBlockEssential
  | DocumentBlockContentRef
  | DocumentBlockCode
  | DocumentBlockEmbed
  | DocumentBlockFile
  | DocumentBlockImages
  | DocumentBlockDrawing
  | DocumentBlockHint
  | DocumentBlockQuote
  | DocumentBlockMath
  | DocumentBlockIntegration;

export interface DocumentBlockTabsItem {
  object: "block";
  type: "tabs-item";
  key?: string;
  isVoid?: false;
  nodes: TabChild[];
  data: { title?: string };
  meta?: { id: string };
}

export interface DocumentBlockTabs {
  object: "block";
  type: "tabs";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockTabsItem[];
  data?: { fullWidth?: boolean };
}

export interface DocumentBlockStepperStep {
  object: "block";
  type: "stepper-step";
  key?: string;
  isVoid?: false;
  nodes: TabChild[];
  data: { icon?: string };
}

export interface DocumentBlockStepper {
  object: "block";
  type: "stepper";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockStepperStep[];
  data?: Record<string, never>;
}

export interface OpenAPIOperationPointer {
  path: string;
  method: string;
}

export interface DocumentBlockOpenAPI {
  object: "block";
  type: "swagger";
  key?: string;
  isVoid: true;
  data: OpenAPIOperationPointer & { ref: ContentRefFile | ContentRefURL; expanded?: boolean; fullWidth?: boolean };
  meta?: { id: string };
}

export interface DocumentBlockOpenAPIOperation {
  object: "block";
  type: "openapi-operation";
  key?: string;
  isVoid: true;
  data: OpenAPIOperationPointer & { ref: ContentRefOpenAPI };
  meta?: { id: string };
}

export interface DocumentBlockOpenAPISchemas {
  object: "block";
  type: "openapi-schemas";
  key?: string;
  isVoid: true;
  data: { schemas: string[]; grouped?: boolean; ref: ContentRefOpenAPI };
  meta?: { id: string };
}

export interface DocumentBlockOpenAPIWebhook {
  object: "block";
  type: "openapi-webhook";
  key?: string;
  isVoid: true;
  data: { name: string; method: string; ref: ContentRefOpenAPI };
  meta?: { id: string };
}

export type TableRecordValue = number | string | null | boolean | string[] | ContentRef | TableImageRecord;
export type TableImageRecord = ImageRef | { ref: ImageRef; objectFit?: string; alt?: string };

export interface DocumentTableRecord {
  orderIndex: string;
  values: Record<string, TableRecordValue>;
}

export type DocumentTableDefinition =
  | { id: string; title: string; type: "text"; textAlignment: "center" | "right" | "left"; verticalAlignment?: "top" | "middle" | "bottom" }
  | { id: string; title: string; type: "number" | "checkbox" | "files" | "content-ref" | "image" }
  | { id: string; title: string; type: "users"; multiple: boolean }
  | { id: string; title: string; type: "rating"; max: number }
  | { id: string; title: string; type: "select"; multiple: boolean; options: Array<{ value: string; label: string; color: string }> };

export interface DocumentTableViewGrid {
  type: "grid";
  columns: string[];
  columnWidths?: Record<string, number>;
  hideHeader: boolean;
  useNewSizing?: boolean;
}

export interface DocumentTableViewCards {
  type: "cards";
  cardSize: "medium" | "large";
  columns: string[];
  targetDefinition?: string;
  coverDefinition?: string;
  coverDefinitionDark?: string;
  hideColumnTitle?: boolean;
}

export interface DocumentBlockTable {
  object: "block";
  type: "table";
  key?: string;
  isVoid: true;
  data: {
    view: DocumentTableViewGrid | DocumentTableViewCards;
    records: Record<string, DocumentTableRecord>;
    definition: Record<string, DocumentTableDefinition>;
    fullWidth?: boolean;
  };
  fragments: DocumentFragment[];
}

export interface DocumentBlockIf {
  object: "block";
  type: "if";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlockTopLevel[];
  data: { expression: string };
}

export interface DocumentBlockColumn {
  object: "block";
  type: "column";
  key?: string;
  isVoid?: false;
  nodes: DocumentBlock[];
  data: { width?: Length; verticalAlignment?: "top" | "middle" | "bottom" };
}

export interface DocumentBlockColumns {
  object: "block";
  type: "columns";
  key?: string;
  isVoid: false;
  nodes: DocumentBlockColumn[];
  data: { fullWidth?: boolean };
}

/** `DocumentBlocksTopLevels`: what may sit directly in `JSONDocument.nodes`. */
export type DocumentBlockTopLevel =
  | DocumentBlockEssential
  | DocumentBlockQuote
  | DocumentBlockHint
  | DocumentBlockImages
  | DocumentBlockFile
  | DocumentBlockDrawing
  | DocumentBlockEmbed
  | DocumentBlockCode
  | DocumentBlockMath
  | DocumentBlockExpandable
  | DocumentBlockTabs
  | DocumentBlockTable
  | DocumentBlockOpenAPI
  | DocumentBlockOpenAPIOperation
  | DocumentBlockOpenAPISchemas
  | DocumentBlockOpenAPIWebhook
  | DocumentBlockContentRef
  | DocumentBlockIntegration
  | DocumentBlockReusableContent
  | DocumentBlockStepper;

/** `DocumentBlock`: every block type. */
export type DocumentBlock =
  | DocumentBlockTopLevel
  | DocumentBlockListItem
  | DocumentBlockIf
  | DocumentBlockImage
  | DocumentBlockCodeLine
  | DocumentBlockTabsItem
  | DocumentBlockStepperStep
  | DocumentBlockColumns
  | DocumentBlockColumn;

export type DocumentBlockType = DocumentBlock["type"];

export interface JSONDocument {
  object: "document";
  data: { schemaVersion?: number; [key: string]: unknown };
  nodes: DocumentBlockTopLevel[];
}

/** Any node that may carry a `key`: blocks, inlines and fragments. */
export type KeyedNode =
  | DocumentBlock
  | DocumentInline
  | DocumentFragment
  | AnnotationBodyFragment
  | ExpandableTitleFragment
  | ExpandableBodyFragment;
