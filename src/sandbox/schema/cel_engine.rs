//! The CEL runtime behind `x-kubernetes-validations`, shared by CRD acceptance and object
//! validation so that a rule accepted with a CRD is exactly the rule that later runs.
//!
//! Two facts about the `cel` crate shape this file:
//! - its ANTLR parser and tree-walking interpreter recurse deeply (in a debug build about
//!   15 nested parentheses exhaust a 2 MiB stack, the size of test and tokio threads), and a
//!   stack overflow aborts the process. So compiling always runs on a thread with a large
//!   (lazily committed) stack, and so does evaluating the rare deeply nested program;
//! - it compiles by parsing only (no type checker), so `cel_check` adds the static checks
//!   the apiserver's compiler would make, and programs are cached per source string.

use super::cel_check;
use cel::common::value::Val;
use cel::{Context, Env, Program, Value as CelValue};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// Stack of the helper thread that compiles (and runs deep programs): address space only,
/// committed as used.
const BIG_STACK: usize = 256 << 20;

/// Programs at most this deep (AST levels) run on the caller's thread; measured to fit a
/// 2 MiB stack in a debug build with room to spare.
const INLINE_DEPTH: usize = 24;

/// A compiled rule (or message expression) and what the static checks learnt about it.
pub(crate) struct Compiled {
    pub program: Program,
    /// Mentions `oldSelf`: a transition rule.
    pub uses_old_self: bool,
    /// AST depth, to pick the thread it runs on.
    pub depth: usize,
}

static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| Arc::new(build_env()));

/// The libraries Kubernetes' CEL environment has that the crate offers: the standard
/// library, strings, lists, math and base64. A library that fails to register only makes
/// the rules using it fail to compile, loudly.
fn build_env() -> Env {
    let mut env = Env::stdlib();
    let _ = env.add_extension(cel::extensions::strings);
    let _ = env.add_extension(cel::extensions::lists);
    let _ = env.add_extension(cel::extensions::math);
    let _ = env.add_extension(cel::extensions::encoders);
    env
}

pub(crate) fn env() -> Arc<Env> {
    Arc::clone(&ENV)
}

type CompileResult = Result<Arc<Compiled>, String>;

static CACHE: LazyLock<Mutex<HashMap<String, CompileResult>>> = LazyLock::new(Default::default);

/// A poisoned lock only means another thread panicked mid-insert; the map is still usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Compiles `source` once per process (failures are cached too: they are deterministic).
/// The error is the compiler's message, e.g. `ERROR: <input>:1:8: Syntax error: ...`.
pub(crate) fn compile(source: &str) -> CompileResult {
    if let Some(hit) = lock(&CACHE).get(source) {
        return hit.clone();
    }
    // A thread that could not start is transient: only the compiler's verdict is cached.
    let result = on_big_stack(|| compile_uncached(source))?;
    lock(&CACHE).insert(source.to_string(), result.clone());
    result
}

fn compile_uncached(source: &str) -> CompileResult {
    let program = parse(source)?;
    let analysis = cel_check::analyze(&program, source)?;
    Ok(Arc::new(Compiled {
        program,
        uses_old_self: analysis.uses_old_self,
        depth: analysis.depth,
    }))
}

fn parse(source: &str) -> Result<Program, String> {
    let env = env();
    let parsed = catch_unwind(AssertUnwindSafe(|| env.compile(source)))
        .map_err(|_| "the CEL parser panicked".to_string())?;
    parsed.map_err(|e| cel_go_snippets(&e.to_string()))
}

/// cel-go indents the source snippet under an error (` | source`); the crate does not.
fn cel_go_snippets(message: &str) -> String {
    message
        .lines()
        .map(|line| {
            if line.starts_with('|') {
                format!(" {line}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `f` on a fresh thread with a large stack and waits for it.
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("cel".to_string())
            .stack_size(BIG_STACK)
            .spawn_scoped(scope, f)
            .map_err(|e| format!("cannot start a CEL thread: {e}"))?;
        handle
            .join()
            .map_err(|_| "the CEL thread panicked".to_string())
    })
}

/// Evaluates a compiled program with the given variables bound.
pub(crate) fn execute(compiled: &Compiled, vars: &[(&str, &CelValue)]) -> Result<CelValue, String> {
    if compiled.depth <= INLINE_DEPTH {
        run(&compiled.program, vars)
    } else {
        on_big_stack(|| run(&compiled.program, vars))?
    }
}

fn run(program: &Program, vars: &[(&str, &CelValue)]) -> Result<CelValue, String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut ctx = Context::with_env(env());
        for (name, value) in vars {
            let boxed = Box::<dyn Val>::try_from((*value).clone()).map_err(|e| e.to_string())?;
            ctx.add_variable_as_val(*name, boxed);
        }
        program.execute(&ctx).map_err(|e| e.to_string())
    }));
    outcome.unwrap_or_else(|_| Err("the CEL interpreter panicked".to_string()))
}

static HELPERS: LazyLock<Mutex<HashMap<&'static str, CompileResult>>> =
    LazyLock::new(Default::default);

/// Small fixed programs this module evaluates for its own needs (regexes, formats). They
/// bind their own variables, so they skip the checks meant for user rules.
fn helper(source: &'static str) -> CompileResult {
    if let Some(hit) = lock(&HELPERS).get(source) {
        return hit.clone();
    }
    let compiled = on_big_stack(|| parse(source))?.map(|program| {
        Arc::new(Compiled {
            program,
            uses_old_self: false,
            depth: 0,
        })
    });
    lock(&HELPERS).insert(source, compiled.clone());
    compiled
}

/// Whether `text` matches the RE2-style `pattern`, through CEL's `matches` (the crate's
/// regex engine, which `fleet-eviction` does not depend on directly). `Err` carries the
/// regex compiler's message for an invalid pattern.
///
/// `matches` compiles the regex on every call (~50 µs in a release build), so results are
/// memoised per (pattern, text): the sandbox sees the same names and keys over and over.
pub(crate) fn regex_matches(text: &str, pattern: &str) -> Result<bool, String> {
    if text.len() > REGEX_MEMO_TEXT_LIMIT {
        return regex_matches_uncached(text, pattern);
    }
    let memo_key = (pattern.to_string(), text.to_string());
    if let Some(hit) = lock(&REGEX_MEMO).get(&memo_key) {
        return hit.clone();
    }
    let result = regex_matches_uncached(text, pattern);
    let mut memo = lock(&REGEX_MEMO);
    if memo.len() >= REGEX_MEMO_LIMIT {
        memo.clear();
    }
    memo.insert(memo_key, result.clone());
    result
}

const REGEX_MEMO_LIMIT: usize = 8192;

/// Longer texts are not memoised, to bound the memo's size.
const REGEX_MEMO_TEXT_LIMIT: usize = 1024;

type RegexMemo = HashMap<(String, String), Result<bool, String>>;

static REGEX_MEMO: LazyLock<Mutex<RegexMemo>> = LazyLock::new(Default::default);

fn regex_matches_uncached(text: &str, pattern: &str) -> Result<bool, String> {
    let program = helper("s.matches(p)")?;
    let s = CelValue::String(Arc::new(text.to_string()));
    let p = CelValue::String(Arc::new(pattern.to_string()));
    match execute(&program, &[("s", &s), ("p", &p)]) {
        Ok(CelValue::Bool(b)) => Ok(b),
        Ok(other) => Err(format!("unexpected regex result {other:?}")),
        Err(e) => Err(regex_error(&e)),
    }
}

/// The regex crate's error, without CEL's wrapping: its last line reads `error: <what>`.
fn regex_error(message: &str) -> String {
    let last = message.lines().last().unwrap_or(message).trim();
    match last.strip_prefix("error: ") {
        Some(what) => format!("error parsing regexp: {what}"),
        None => last.to_string(),
    }
}

/// The CEL value Kubernetes gives a string of a schema `format`: timestamps, durations and
/// bytes. `None` when the format has no CEL type or the text does not parse (the rule then
/// sees the plain string).
pub(crate) fn convert_format(format: &str, text: &str) -> Option<CelValue> {
    let source = match format {
        "date-time" => "timestamp(s)",
        "date" => "timestamp(s + 'T00:00:00Z')",
        "duration" => "duration(s)",
        "byte" => "base64.decode(s)",
        _ => return None,
    };
    let program = helper(source).ok()?;
    let s = CelValue::String(Arc::new(text.to_string()));
    execute(&program, &[("s", &s)]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}1{} == 1", "(".repeat(depth), ")".repeat(depth))
    }

    #[test]
    fn compile_accepts_and_rejects() {
        let cases = [
            ("plain rule compiles", "self >= 0", true),
            ("syntax error is rejected", "self ==", false),
            (
                "deep parentheses do not overflow the stack",
                &nested(40),
                true,
            ),
            (
                "absurd nesting is rejected, not a crash",
                &nested(300),
                false,
            ),
        ];
        for (rule, source, ok) in cases {
            assert_eq!(
                compile(source).is_ok(),
                ok,
                "{rule}: {:?}",
                compile(source).err()
            );
        }
    }

    #[test]
    fn compile_is_cached() {
        let a = compile("self.size() > 1").ok();
        let b = compile("self.size() > 1").ok();
        assert!(matches!((a, b), (Some(a), Some(b)) if Arc::ptr_eq(&a, &b)));
    }

    #[test]
    fn deep_programs_run_on_a_big_stack() {
        let source = vec!["1"; 120].join(" + ") + " == 120";
        let compiled = compile(&source).map_err(|e| e.to_string());
        let result = compiled.and_then(|c| execute(&c, &[]));
        assert_eq!(result, Ok(CelValue::Bool(true)));
    }

    #[test]
    fn regexes_match_and_report_bad_patterns() {
        let cases = [
            ("anchored match", "50%", "^(100|[0-9]{1,2})%$", Ok(true)),
            ("no match", "101%", "^(100|[0-9]{1,2})%$", Ok(false)),
            ("unicode pattern", "5µs", "^[0-9]+(ns|µs)$", Ok(true)),
            (
                "invalid pattern",
                "x",
                "+",
                Err("error parsing regexp: repetition operator missing expression".to_string()),
            ),
        ];
        for (rule, text, pattern, expected) in cases {
            assert_eq!(regex_matches(text, pattern), expected, "{rule}");
        }
    }

    #[test]
    fn formats_convert_to_cel_types() {
        let cases = [
            (
                "date-time is a timestamp",
                "date-time",
                "2024-01-02T03:04:05Z",
                "timestamp",
            ),
            ("duration is a duration", "duration", "1h30m", "duration"),
            ("byte is bytes", "byte", "YQ==", "bytes"),
        ];
        for (rule, format, text, kind) in cases {
            let value = convert_format(format, text);
            let got = value.map(|v| v.type_of().to_string());
            assert_eq!(got.as_deref(), Some(kind), "{rule}");
        }
        assert!(
            convert_format("date-time", "not a time").is_none(),
            "bad text stays a string"
        );
        assert!(
            convert_format("int32", "1").is_none(),
            "formats without a CEL type"
        );
    }
}
