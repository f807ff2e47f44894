/**
 * The evaluator's own syntax tree. parse.ts builds it from acorn's tree and keeps only what the
 * language supports, so the interpreter never meets a construct it does not know. Left-nested
 * operator and member/call chains are flattened into lists: `a || b || c` or `a.b.c.d` nest only one
 * level, so the depth limit counts real nesting, not the length of a chain.
 */

/** Names the language provides itself; they cannot be shadowed by the context or by parameters. */
export const BUILTIN_FUNCTIONS = ["Number", "String", "Boolean"] as const;
export const BUILTIN_NAMESPACES = ["Math", "Array"] as const;
export type BuiltinName = (typeof BUILTIN_FUNCTIONS)[number] | (typeof BUILTIN_NAMESPACES)[number];

export type BinaryOperator =
  | "=="
  | "!="
  | "==="
  | "!=="
  | "<"
  | "<="
  | ">"
  | ">="
  | "<<"
  | ">>"
  | ">>>"
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"
  | "**"
  | "|"
  | "^"
  | "&"
  | "in";
export type LogicalOperator = "&&" | "||" | "??";
export type UnaryOperator = "!" | "-" | "+" | "~" | "typeof";

interface At {
  /** 0-based offset of the construct in the source, for error messages. */
  start: number;
}

export interface LiteralNode extends At {
  type: "literal";
  value: string | number | boolean | null | undefined;
}
export interface TemplateNode extends At {
  type: "template";
  /** Cooked text around the expressions; always one more than `expressions`. */
  quasis: string[];
  expressions: ExprNode[];
}
/** A parameter of an enclosing arrow function, else an own property of the context. */
export interface IdentifierNode extends At {
  type: "identifier";
  name: string;
}
/** `Math`, `Number`... outside the call forms that use them. */
export interface BuiltinNode extends At {
  type: "builtin";
  name: BuiltinName;
}
export interface SpreadNode extends At {
  type: "spread";
  argument: ExprNode;
}
export interface ArrayNode extends At {
  type: "array";
  elements: (ExprNode | SpreadNode)[];
}
export interface PropertyNode {
  /** A plain key, or an expression for `[key]: value`. */
  key: string | ExprNode;
  value: ExprNode;
}
export interface ObjectNode extends At {
  type: "object";
  properties: (PropertyNode | SpreadNode)[];
}
export interface UnaryNode extends At {
  type: "unary";
  operator: UnaryOperator;
  argument: ExprNode;
}
/** `first op1 x op2 y...`, evaluated as a left fold: acorn nests these to the left. */
export interface BinaryNode extends At {
  type: "binary";
  first: ExprNode;
  rest: { operator: BinaryOperator; operand: ExprNode; start: number }[];
}
/** Same as BinaryNode, with short-circuit: an operand is evaluated only when needed. */
export interface LogicalNode extends At {
  type: "logical";
  first: ExprNode;
  rest: { operator: LogicalOperator; operand: ExprNode }[];
}
export interface ConditionalNode extends At {
  type: "conditional";
  test: ExprNode;
  consequent: ExprNode;
  alternate: ExprNode;
}

export interface MemberLink extends At {
  kind: "member";
  /** `a.b` has key "b"; `a[k]` has the node of `k`. */
  key: string | ExprNode;
  optional: boolean;
}
export interface CallLink extends At {
  kind: "call";
  args: (ExprNode | SpreadNode)[];
  optional: boolean;
  /** Source text of the callee, to name it in "... is not a function you can call". */
  callee: string;
}
export type Link = MemberLink | CallLink;

/**
 * `base.link1[link2](link3)...`: one flattened member/call chain. An optional link (`?.`) whose
 * value is null or undefined ends the whole chain with undefined, as in JavaScript.
 */
export interface ChainNode extends At {
  type: "chain";
  base: ExprNode;
  links: Link[];
}

export type PatternNode =
  | { type: "bind"; name: string; start: number }
  | { type: "object"; properties: { key: string; value: PatternNode }[]; start: number }
  | { type: "default"; target: PatternNode; value: ExprNode; start: number };

/** Only ever an argument of a call: parse.ts refuses arrows anywhere else. */
export interface ArrowNode extends At {
  type: "arrow";
  params: PatternNode[];
  body: ExprNode;
}

export type ExprNode =
  | LiteralNode
  | TemplateNode
  | IdentifierNode
  | BuiltinNode
  | ArrayNode
  | ObjectNode
  | UnaryNode
  | BinaryNode
  | LogicalNode
  | ConditionalNode
  | ChainNode
  | ArrowNode;
