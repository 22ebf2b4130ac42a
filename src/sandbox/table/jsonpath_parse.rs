//! The parser of printer-column paths: one step per path element, following the order
//! in which client-go's parser tries the alternatives.

use super::jsonpath::{Filter, FilterTest, JsonPathError, Step, fail};
use super::jsonpath_operands::{dict_key, filter_end, parse_slice, split_comparison, unquote};
use serde_json::Value;

pub(super) fn parse_steps(text: &str) -> Result<Vec<Step>, JsonPathError> {
    let mut parser = Parser {
        text,
        pos: 0,
        steps: Vec::new(),
    };
    parser.run()?;
    Ok(parser.steps)
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    steps: Vec<Step>,
}

impl<'t> Parser<'t> {
    fn rest(&self) -> &'t str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn run(&mut self) -> Result<(), JsonPathError> {
        while let Some(c) = self.rest().chars().next() {
            if self.rest().starts_with("[?(") {
                self.filter()?;
            } else if self.rest().starts_with("..") {
                self.recursive()?;
            } else {
                self.simple_step(c)?;
            }
        }
        Ok(())
    }

    fn simple_step(&mut self, c: char) -> Result<(), JsonPathError> {
        match c {
            '\n' | '\r' => return fail("unclosed action"),
            ' ' | '@' | '$' => self.pos += 1,
            '[' => self.bracket()?,
            '"' | '\'' => self.quoted(c)?,
            '.' => {
                self.pos += 1;
                self.field();
            }
            '+' | '-' => self.number()?,
            c if c.is_ascii_digit() => self.number()?,
            c if c == '_' || c.is_alphanumeric() => self.identifier(),
            '}' => return fail("text after the path is not supported in printer columns"),
            c => {
                let shown = format!("U+{:04X} '{c}'", c as u32);
                return fail(format!("unrecognized character in action: {shown}"));
            }
        }
        Ok(())
    }

    /// Consumes up to (not including) the next terminator, honouring `\` escapes.
    fn take_name(&mut self) -> &'t str {
        let start = self.pos;
        let mut chars = self.rest().char_indices();
        let mut end = self.rest().len();
        while let Some((i, c)) = chars.next() {
            if c == '\\' {
                chars.next();
            } else if is_terminator(c) {
                end = i;
                break;
            }
        }
        self.pos += end;
        self.text.get(start..self.pos).unwrap_or_default()
    }

    fn field(&mut self) {
        let raw = self.take_name();
        let step = if raw == "*" {
            Step::Wildcard
        } else {
            Step::Field(raw.replace('\\', ""))
        };
        self.steps.push(step);
    }

    fn identifier(&mut self) {
        let step = match self.take_name() {
            "true" => Step::Literal(Value::Bool(true)),
            "false" => Step::Literal(Value::Bool(false)),
            other => Step::Unknown(other.to_string()),
        };
        self.steps.push(step);
    }

    fn recursive(&mut self) -> Result<(), JsonPathError> {
        if self.steps.last() == Some(&Step::Recursive) {
            return fail("invalid multiple recursive descent");
        }
        self.pos += 2;
        self.steps.push(Step::Recursive);
        if self
            .rest()
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_alphanumeric())
        {
            self.field();
        }
        Ok(())
    }

    fn number(&mut self) -> Result<(), JsonPathError> {
        let rest = self.rest();
        let sign = usize::from(rest.starts_with(['+', '-']));
        let body = rest
            .get(sign..)
            .unwrap_or_default()
            .chars()
            .take_while(|c| *c == '.' || c.is_ascii_digit())
            .count();
        let text = rest.get(..sign + body).unwrap_or_default();
        let value = if let Ok(i) = text.parse::<i64>() {
            Value::from(i)
        } else if let Some(f) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            Value::Number(f)
        } else {
            return fail(format!("cannot parse number {text}"));
        };
        self.pos += sign + body;
        self.steps.push(Step::Literal(value));
        Ok(())
    }

    fn quoted(&mut self, quote: char) -> Result<(), JsonPathError> {
        let rest = self.rest();
        let mut previous = quote;
        let mut close = None;
        for (i, c) in rest.char_indices().skip(1) {
            if c == '\n' {
                break;
            }
            if c == quote && previous != '\\' {
                close = Some(i);
                break;
            }
            previous = c;
        }
        let Some(close) = close else {
            return fail("unterminated quoted string");
        };
        let raw = rest.get(..=close).unwrap_or_default();
        let text = unquote(raw, quote)
            .ok_or_else(|| JsonPathError(format!("unquote string {raw} error invalid syntax")))?;
        self.pos += close + 1;
        self.steps.push(Step::Literal(Value::String(text)));
        Ok(())
    }

    fn bracket(&mut self) -> Result<(), JsonPathError> {
        let rest = self.rest();
        let close = rest.char_indices().find(|(_, c)| matches!(c, ']' | '\n'));
        let Some((close, ']')) = close else {
            return fail("unterminated array");
        };
        let inner = rest.get(1..close).unwrap_or_default();
        self.pos += close + 1;
        let inner = if inner == "*" { ":" } else { inner };
        if inner.contains(',') {
            return fail(format!(
                "unions ({inner}) are not supported in printer columns"
            ));
        }
        if let Some(key) = dict_key(inner) {
            // client-go reads ['a.b'] as .a.b: the quotes do not protect dots.
            let steps = parse_steps(&format!(".{key}"))?;
            self.steps.extend(steps);
            return Ok(());
        }
        let slice = parse_slice(inner)?;
        self.steps.push(Step::Slice(slice));
        Ok(())
    }

    fn filter(&mut self) -> Result<(), JsonPathError> {
        self.pos += 3;
        let rest = self.rest();
        let close = filter_end(rest)?;
        if rest.get(close + 1..close + 2) != Some("]") {
            return fail("unclosed array expect ]");
        }
        let inner = rest.get(..close).unwrap_or_default();
        self.pos += close + 2;
        let filter = match split_comparison(inner) {
            None => Filter {
                left: parse_steps(inner)?,
                test: FilterTest::Exists,
            },
            Some((left, operator, right)) => Filter {
                left: parse_steps(left)?,
                test: FilterTest::Compare {
                    operator: operator.to_string(),
                    right: parse_steps(right)?,
                },
            },
        };
        self.steps.push(Step::Filter(Box::new(filter)));
        Ok(())
    }
}

fn is_terminator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
    )
}
