//! The string form of label selectors, tokenised and parsed the way apimachinery's
//! `labels.Parse` does, so that malformed selectors fail with the same messages.

use super::label::{Operator, Requirement, invalid};
use super::label_names::qualified_name_errors;
use crate::sandbox::table::go_text::go_quote;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// Where `in`/`notin` are keywords (after a key) or plain values (everywhere else).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

/// Parses a selector string into its requirements, in the order written.
pub(super) fn parse(text: &str) -> Result<Vec<Requirement>, String> {
    let mut parser = Parser {
        items: lex(text),
        position: 0,
    };
    parser.requirements()
}

fn lex(text: &str) -> Vec<(Token, String)> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    let mut pos = 0;
    loop {
        while bytes.get(pos).is_some_and(|b| is_whitespace(*b)) {
            pos += 1;
        }
        let Some(&first) = bytes.get(pos) else {
            items.push((Token::End, String::new()));
            return items;
        };
        let end = if is_special(first) {
            special_end(text, pos)
        } else {
            identifier_end(bytes, pos)
        };
        let literal = text.get(pos..end).unwrap_or_default().to_string();
        items.push((token_of(&literal), literal));
        pos = end;
    }
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The longest run of operator characters that is still one operator (`!=`, `==`, `(`...).
fn special_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = start + 1; // every single special character is a token
    while bytes.get(end).is_some_and(|b| is_special(*b))
        && text.get(start..end + 1).map(token_of) != Some(Token::Identifier)
    {
        end += 1;
    }
    end
}

fn identifier_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while bytes
        .get(end)
        .is_some_and(|b| !is_special(*b) && !is_whitespace(*b))
    {
        end += 1;
    }
    end
}

fn token_of(literal: &str) -> Token {
    match literal {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => Token::Identifier,
    }
}

struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

impl Parser {
    fn lookahead(&self, context: Context) -> (Token, String) {
        let (token, literal) = self
            .items
            .get(self.position)
            .cloned()
            .unwrap_or((Token::End, String::new()));
        let token = match token {
            Token::In | Token::NotIn if context == Context::Values => Token::Identifier,
            other => other,
        };
        (token, literal)
    }

    fn consume(&mut self, context: Context) -> (Token, String) {
        let item = self.lookahead(context);
        self.position += 1;
        item
    }

    fn requirements(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead(Context::Values);
            match token {
                Token::Identifier | Token::DoesNotExist => {
                    let requirement = self
                        .requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(requirement);
                    if self.after_requirement()? {
                        return Ok(requirements);
                    }
                }
                Token::End => return Ok(requirements),
                _ => {
                    return Err(format!(
                        "found '{literal}', expected: !, identifier, or 'end of string'"
                    ));
                }
            }
        }
    }

    /// After a requirement: the end (true), or a comma followed by another requirement.
    fn after_requirement(&mut self) -> Result<bool, String> {
        let (token, literal) = self.consume(Context::Values);
        match token {
            Token::End => Ok(true),
            Token::Comma => match self.lookahead(Context::Values) {
                (Token::Identifier | Token::DoesNotExist, _) => Ok(false),
                (_, next) => Err(format!("found '{next}', expected: identifier after ','")),
            },
            _ => Err(format!(
                "found '{literal}', expected: ',' or 'end of string'"
            )),
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, unary) = self.key_and_unary_operator()?;
        if let Some(operator) = unary {
            return Requirement::new(&key, operator, Vec::new());
        }
        let operator = self.operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.value_set()?,
            _ => self.exact_value()?,
        };
        Requirement::new(&key, operator, values.into_iter().collect())
    }

    /// The key, and `Exists`/`DoesNotExist` when no binary operator follows it.
    fn key_and_unary_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let (mut token, mut literal) = self.consume(Context::Values);
        let negated = token == Token::DoesNotExist;
        if negated {
            (token, literal) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        let errors = qualified_name_errors(&literal);
        if !errors.is_empty() {
            // The parser checks the key before building the requirement, with a nil path.
            return Err(invalid("<nil>", &go_quote(&literal), &errors.join("; ")));
        }
        let (next, _) = self.lookahead(Context::Values);
        let unary = match (negated, next) {
            (true, _) => Some(Operator::DoesNotExist),
            (false, Token::End | Token::Comma) => Some(Operator::Exists),
            (false, _) => None,
        };
        Ok((literal, unary))
    }

    fn operator(&mut self) -> Result<Operator, String> {
        let (token, literal) = self.consume(Context::KeyAndOperator);
        Ok(match token {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => return Err(format!("found '{literal}', expected: {BINARY_OPERATORS}")),
        })
    }

    /// `(a,b,c)`; empty entries (`()`, `(a,)`, `(,a)`) stand for the empty value.
    fn value_set(&mut self) -> Result<BTreeSet<String>, String> {
        let (token, literal) = self.consume(Context::Values);
        if token != Token::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead(Context::Values);
        match token {
            Token::Identifier | Token::Comma => self.value_list(),
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(format!(
                "found '{literal}', expected: ',', ')' or identifier"
            )),
        }
    }

    fn value_list(&mut self) -> Result<BTreeSet<String>, String> {
        let mut values = BTreeSet::new();
        loop {
            let (token, literal) = self.consume(Context::Values);
            match token {
                Token::Identifier => {
                    values.insert(literal);
                    match self.lookahead(Context::Values) {
                        (Token::Comma, _) => {}
                        (Token::ClosedPar, _) => return self.close_values(values),
                        (_, next) => return Err(format!("found '{next}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if values.is_empty() {
                        values.insert(String::new()); // "(," starts with an empty value
                    }
                    match self.lookahead(Context::Values).0 {
                        Token::ClosedPar => {
                            values.insert(String::new()); // ",)" ends with one
                            return self.close_values(values);
                        }
                        Token::Comma => {
                            self.consume(Context::Values);
                            values.insert(String::new()); // ",," has one between
                        }
                        _ => {}
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
    }

    fn close_values(&mut self, values: BTreeSet<String>) -> Result<BTreeSet<String>, String> {
        self.consume(Context::Values);
        Ok(values)
    }

    /// The single value after `=`, `==`, `!=`, `>` or `<`; nothing before `,` or the end
    /// is the empty value.
    fn exact_value(&mut self) -> Result<BTreeSet<String>, String> {
        if let (Token::End | Token::Comma, _) = self.lookahead(Context::Values) {
            return Ok(BTreeSet::from([String::new()]));
        }
        match self.consume(Context::Values) {
            (Token::Identifier, literal) => Ok(BTreeSet::from([literal])),
            (_, literal) => Err(format!("found '{literal}', expected: identifier")),
        }
    }
}
