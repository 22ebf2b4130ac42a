//! Static checks of a parsed CEL program, standing in for the type checker the `cel` crate
//! lacks: the apiserver refuses a CRD whose rule names an unknown variable, function or
//! field, and so must we, or a typo would be accepted and silently never match.
//!
//! Errors read like cel-go's: `ERROR: <input>:1:5: undeclared reference to 'foo' (in
//! container '')` followed by the source line and a caret.

use super::cel_engine;
use super::props::{self, Schema};
use cel::Program;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, SourceInfo};

/// Deeper programs are refused: every later walk over the AST recurses, and the
/// apiserver's own parser stops well before this.
const MAX_DEPTH: usize = 200;

/// Identifiers that name types (`type(self) == string`).
const TYPE_NAMES: &[&str] = &[
    "bool",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
    "dyn",
];

/// CEL keywords Kubernetes escapes as `__<keyword>__` in property names.
const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "package",
    "namespace",
    "null",
    "return",
    "true",
    "var",
    "void",
    "while",
];

pub(crate) struct Analysis {
    pub uses_old_self: bool,
    pub depth: usize,
}

/// Depth and name checks that need no schema (run once per rule, at compile time).
pub(crate) fn analyze(program: &Program, source: &str) -> Result<Analysis, String> {
    let depth = depth_of(program.expression());
    if depth > MAX_DEPTH {
        return Err(format!(
            "ERROR: <input>:1:1: expression nesting depth {depth} exceeds {MAX_DEPTH}"
        ));
    }
    let mut walker = Walker::new(program.source_info(), source, None);
    walker.walk(program.expression())?;
    Ok(Analysis {
        uses_old_self: walker.uses_old_self,
        depth,
    })
}

/// Checks that every field selected on `self`/`oldSelf` (and on items iterated from them)
/// exists in `schema`, the schema of the node the rule sits on. `resource_root` is true at
/// the top of the object or of an embedded resource, where only `apiVersion`, `kind` and
/// `metadata.name`/`metadata.generateName` are visible besides the declared properties.
pub(crate) fn check_fields(
    program: &Program,
    source: &str,
    schema: &Schema,
    resource_root: bool,
) -> Result<(), String> {
    let root = Shape::Node(schema, resource_root);
    Walker::new(program.source_info(), source, Some(root)).walk(program.expression())
}

fn depth_of(e: &IdedExpr) -> usize {
    let children: Vec<&IdedExpr> = match &e.expr {
        Expr::Call(call) => call.target.iter().map(|t| &**t).chain(&call.args).collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|e| entry_exprs(&e.expr))
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter()
            .flat_map(|e| entry_exprs(&e.expr))
            .collect(),
        Expr::Select(s) => vec![&*s.operand],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => vec![],
    };
    1 + children.into_iter().map(depth_of).max().unwrap_or(0)
}

fn entry_exprs(entry: &EntryExpr) -> Vec<&IdedExpr> {
    match entry {
        EntryExpr::MapEntry(m) => vec![&m.key, &m.value],
        EntryExpr::StructField(f) => vec![&f.value],
    }
}

/// What is statically known about the value an expression denotes.
#[derive(Clone, Copy)]
enum Shape<'s> {
    /// A node of the schema; `true` if it is a resource root (top level or embedded).
    Node(&'s Schema, bool),
    /// `metadata` of a resource root: only `name` and `generateName` are visible.
    Meta,
    Unknown,
}

struct Walker<'a, 's> {
    info: &'a SourceInfo,
    source: &'a str,
    /// Variables bound by comprehensions, innermost last, with their shapes.
    scope: Vec<(String, Shape<'s>)>,
    /// The shape of `self`/`oldSelf` when fields are checked.
    root: Option<Shape<'s>>,
    uses_old_self: bool,
}

impl<'a, 's> Walker<'a, 's> {
    fn new(info: &'a SourceInfo, source: &'a str, root: Option<Shape<'s>>) -> Self {
        Self {
            info,
            source,
            scope: Vec::new(),
            root,
            uses_old_self: false,
        }
    }

    fn walk(&mut self, e: &IdedExpr) -> Result<(), String> {
        match &e.expr {
            Expr::Ident(name) => self.ident(name, e.id),
            Expr::Select(select) => {
                self.walk(&select.operand)?;
                self.check_select(&select.operand, &select.field, e.id)
            }
            Expr::Call(call) => {
                let mut target_is_namespace = false;
                if let Some(target) = &call.target {
                    // `optional.of(x)`, `math.abs(x)`: a qualified global function.
                    if let Some(q) = self.qualified_unbound(target) {
                        target_is_namespace = declared(&format!("{q}.{}", call.func_name));
                    }
                    if !target_is_namespace {
                        self.walk(target)?;
                    }
                }
                if !target_is_namespace
                    && !is_operator(&call.func_name)
                    && !declared(&call.func_name)
                {
                    return Err(self.error(e.id, &undeclared(&call.func_name)));
                }
                call.args.iter().try_for_each(|a| self.walk(a))
            }
            Expr::Comprehension(c) => {
                self.walk(&c.iter_range)?;
                self.walk(&c.accu_init)?;
                let element = self.element_shape(&c.iter_range);
                let depth = self.scope.len();
                // With two variables, the first is the index (or key), the second the item.
                match &c.iter_var2 {
                    Some(v2) => {
                        self.scope.push((c.iter_var.clone(), Shape::Unknown));
                        self.scope.push((v2.clone(), element));
                    }
                    None => self.scope.push((c.iter_var.clone(), element)),
                }
                self.scope.push((c.accu_var.clone(), Shape::Unknown));
                let result = [&c.loop_cond, &c.loop_step, &c.result]
                    .into_iter()
                    .try_for_each(|x| self.walk(x));
                self.scope.truncate(depth);
                result
            }
            Expr::List(l) => l.elements.iter().try_for_each(|x| self.walk(x)),
            Expr::Map(m) => m
                .entries
                .iter()
                .flat_map(|x| entry_exprs(&x.expr))
                .try_for_each(|x| self.walk(x)),
            // Kubernetes declares no message types: a struct literal names an unknown type.
            Expr::Struct(s) => Err(self.error(e.id, &undeclared(&s.type_name))),
            Expr::Literal(_) | Expr::Unspecified => Ok(()),
        }
    }

    fn bound(&self, name: &str) -> Option<Shape<'s>> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, shape)| *shape)
    }

    fn ident(&mut self, name: &str, id: u64) -> Result<(), String> {
        if self.bound(name).is_some() || name == "self" || TYPE_NAMES.contains(&name) {
            return Ok(());
        }
        if name == "oldSelf" {
            self.uses_old_self = true;
            return Ok(());
        }
        Err(self.error(id, &undeclared(name)))
    }

    /// `a.b.c` when `a` is not a variable: a candidate namespace of a function.
    fn qualified_unbound(&self, e: &IdedExpr) -> Option<String> {
        match &e.expr {
            Expr::Ident(name)
                if self.bound(name).is_none() && name != "self" && name != "oldSelf" =>
            {
                Some(name.clone())
            }
            Expr::Select(s) if !s.test => self
                .qualified_unbound(&s.operand)
                .map(|q| format!("{q}.{}", s.field)),
            _ => None,
        }
    }

    fn shape(&self, e: &IdedExpr) -> Shape<'s> {
        match &e.expr {
            Expr::Ident(name) => match self.bound(name) {
                Some(shape) => shape,
                None if name == "self" || name == "oldSelf" => self.root.unwrap_or(Shape::Unknown),
                None => Shape::Unknown,
            },
            Expr::Select(s) if !s.test => select_shape(self.shape(&s.operand), &s.field),
            _ => Shape::Unknown,
        }
    }

    /// Iterating a list binds its items; iterating a map binds keys (strings).
    fn element_shape(&self, range: &IdedExpr) -> Shape<'s> {
        match self.shape(range) {
            Shape::Node(s, _) if props::type_of(s) == "array" => match props::items(s) {
                Some(item) => Shape::Node(item, props::embedded(item)),
                None => Shape::Unknown,
            },
            _ => Shape::Unknown,
        }
    }

    fn check_select(&self, operand: &IdedExpr, field: &str, id: u64) -> Result<(), String> {
        match self.shape(operand) {
            Shape::Unknown => Ok(()),
            Shape::Meta if field == "name" || field == "generateName" => Ok(()),
            Shape::Meta => Err(self.error(id, &format!("undefined field '{field}'"))),
            Shape::Node(s, root) => {
                if root && matches!(field, "apiVersion" | "kind" | "metadata") {
                    return Ok(());
                }
                match props::type_of(s) {
                    "string" | "integer" | "number" | "boolean" | "array" => Err(self.error(
                        id,
                        &format!(
                            "type '{}' does not support field selection",
                            cel_type_name(props::type_of(s))
                        ),
                    )),
                    "object" if declares(s, field) => Ok(()),
                    "object" => Err(self.error(id, &format!("undefined field '{field}'"))),
                    // Untyped (int-or-string, preserve-unknown-fields): dynamic.
                    _ => Ok(()),
                }
            }
        }
    }

    fn error(&self, id: u64, message: &str) -> String {
        let start = self
            .info
            .offset_for(id)
            .map(|(s, _)| s as usize)
            .unwrap_or(0);
        let start = start.min(self.source.len());
        let before = self.source.get(..start).unwrap_or("");
        let line_no = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let col = before[line_start..].chars().count() + 1;
        let line = self.source[line_start..].lines().next().unwrap_or("");
        format!(
            "ERROR: <input>:{line_no}:{col}: {message}\n | {line}\n | {}^",
            ".".repeat(col - 1)
        )
    }
}

fn undeclared(name: &str) -> String {
    format!("undeclared reference to '{name}' (in container '')")
}

/// Operators and internal functions (`_==_`, `!_`, `@in`, `_?._`) are not user-callable
/// names and are always declared.
fn is_operator(name: &str) -> bool {
    name.starts_with(['_', '@', '!', '-'])
}

/// Whether the environment declares a function (global or member) of this name.
fn declared(name: &str) -> bool {
    let mut probe = cel::Context::with_env(cel_engine::env());
    // Adding a context function fails exactly when the environment declares an overload of
    // that name: the crate's only public way to ask.
    probe.add_function(name, |x: i64| x).is_err()
}

/// Whether an object schema admits `field`: declared (possibly escaped), or any key of a
/// map or unknown-fields-preserving object.
fn declares(s: &Schema, field: &str) -> bool {
    props::preserves_unknown(s)
        || props::has_additional(s)
        || props::property(s, field).is_some()
        || unescape(field).is_some_and(|f| props::property(s, &f).is_some())
}

fn select_shape<'s>(parent: Shape<'s>, field: &str) -> Shape<'s> {
    match parent {
        Shape::Node(_, true) if field == "metadata" => Shape::Meta,
        Shape::Node(s, _) => {
            let child = props::property(s, field)
                .or_else(|| unescape(field).and_then(|f| props::property(s, &f)))
                .or_else(|| props::additional(s));
            match child {
                Some(c) => Shape::Node(c, props::embedded(c)),
                None => Shape::Unknown,
            }
        }
        Shape::Meta | Shape::Unknown => Shape::Unknown,
    }
}

/// Kubernetes' escaping of property names that are not CEL identifiers.
fn unescape(name: &str) -> Option<String> {
    if let Some(inner) = name.strip_prefix("__").and_then(|n| n.strip_suffix("__"))
        && RESERVED.contains(&inner)
    {
        return Some(inner.to_string());
    }
    if !name.contains("__") {
        return None;
    }
    Some(
        name.replace("__underscores__", "\u{0}")
            .replace("__dot__", ".")
            .replace("__dash__", "-")
            .replace("__slash__", "/")
            .replace('\u{0}', "__"),
    )
}

fn cel_type_name(schema_type: &str) -> &str {
    match schema_type {
        "integer" => "int",
        "number" => "double",
        "boolean" => "bool",
        "array" => "list",
        other => other,
    }
}

#[cfg(test)]
#[path = "cel_check_tests.rs"]
mod tests;
