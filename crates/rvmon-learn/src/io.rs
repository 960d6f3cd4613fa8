//! Automata files: AALpy's JSON (as its oracle script reads it) and DOT (AALpy's and
//! LearnLib's, read line by line as AALpy's loader does); written back as either.

use std::collections::HashMap;

use serde_json::Value;

use crate::dfa::Dfa;

/// An error in a file: `name:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError(pub String);

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a DFA from `text`: JSON or DOT by its first non-blank character, LearnLib's
/// numeric format if it starts with a digit.
pub fn read(name: &str, text: &str) -> Result<Dfa, FileError> {
    let start = text.trim_start();
    if start.starts_with('{') {
        read_json(name, text)
    } else if start.starts_with(|c: char| c.is_ascii_digit()) {
        read_numeric(name, text)
    } else {
        read_dot(name, text)
    }
}

/// The numeric format of LearnLib's benchmark automata (learnlib-ttt's `.dfa` files, paper
/// 26's targets): `n k`, then `n` acceptance flags (0 or 1; state 0 is initial), then the
/// `n × k` successors, state by state; the symbols are `0 … k-1`.
pub fn read_numeric(name: &str, text: &str) -> Result<Dfa, FileError> {
    let mut numbers = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut col = 0;
        for word in line.split_whitespace() {
            col = line[col..].find(word).map_or(col, |i| col + i);
            let v: usize = word.parse().map_err(|_| {
                FileError(format!(
                    "{name}:{}:{}: expected a whole number, found `{word}`",
                    n + 1,
                    col + 1
                ))
            })?;
            numbers.push(v);
            col += word.len();
        }
    }
    let bad = |what: String| FileError(format!("{name}: {what}"));
    let (n, k) = match numbers[..] {
        [n, k, ..] if n > 0 && k > 0 => (n, k),
        _ => return Err(bad("expected `states symbols` (both positive) first".into())),
    };
    let want = n.checked_mul(k + 1).and_then(|m| m.checked_add(2));
    if want != Some(numbers.len()) {
        return Err(bad(format!(
            "{n} states and {k} symbols need {} numbers after the first two, found {}",
            n.saturating_mul(k + 1),
            numbers.len() - 2
        )));
    }
    let mut dfa = Dfa::new((0..k).map(|a| a.to_string()).collect(), n);
    for q in 0..n {
        dfa.accepting[q] = match numbers[2 + q] {
            0 => false,
            1 => true,
            other => {
                return Err(bad(format!(
                    "state {q}: acceptance {other}, expected 0 or 1"
                )))
            }
        };
    }
    for (i, &t) in numbers[2 + n..].iter().enumerate() {
        if t >= n {
            return Err(bad(format!(
                "state {}, symbol {}: successor {t}, there are {n} states",
                i / k,
                i % k
            )));
        }
        dfa.delta[i] = t;
    }
    Ok(dfa)
}

/// AALpy's JSON: `alphabet` (its order is the symbol order), `initial`, `transitions` (an
/// object of objects, or a list of `[source, symbol, target]`), `accepting` (default none),
/// `states` (default the keys of `transitions`). Every state needs every symbol.
pub fn read_json(name: &str, text: &str) -> Result<Dfa, FileError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| FileError(format!("{name}:{}:{}: {e}", e.line(), e.column())))?;
    let bad = |what: &str| FileError(format!("{name}: {what}"));
    let strings = |v: Option<&Value>, key: &str| -> Result<Vec<String>, FileError> {
        match v {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| text_of(i).ok_or_else(|| bad(&format!("`{key}`: expected strings"))))
                .collect(),
            Some(_) => Err(bad(&format!("`{key}`: expected a list"))),
        }
    };
    let alphabet = strings(v.get("alphabet"), "alphabet")?;
    if alphabet.is_empty() {
        return Err(bad("`alphabet`: expected a nonempty list of symbols"));
    }
    let initial = v
        .get("initial")
        .and_then(text_of)
        .ok_or_else(|| bad("`initial`: expected the initial state's name"))?;
    let mut rows: Vec<(String, String, String)> = Vec::new();
    match v.get("transitions") {
        Some(Value::Object(m)) => {
            for (src, row) in m {
                let Value::Object(row) = row else {
                    return Err(bad(&format!("`transitions.{src}`: expected an object")));
                };
                for (a, dst) in row {
                    let dst = text_of(dst).ok_or_else(|| {
                        bad(&format!("`transitions.{src}.{a}`: expected a state's name"))
                    })?;
                    rows.push((src.clone(), a.clone(), dst));
                }
            }
        }
        Some(Value::Array(items)) => {
            for item in items {
                match item
                    .as_array()
                    .map(|t| t.iter().map(text_of).collect::<Vec<_>>())
                {
                    Some(t) if t.len() == 3 && t.iter().all(Option::is_some) => {
                        let mut t = t.into_iter().flatten();
                        let (s, a, d) = (t.next(), t.next(), t.next());
                        rows.push((
                            s.unwrap_or_default(),
                            a.unwrap_or_default(),
                            d.unwrap_or_default(),
                        ));
                    }
                    _ => {
                        return Err(bad(
                            "`transitions`: expected [source, symbol, target] triples",
                        ))
                    }
                }
            }
        }
        _ => return Err(bad("`transitions`: expected an object or a list")),
    }
    let mut states = strings(v.get("states"), "states")?;
    if states.is_empty() {
        if let Some(Value::Object(m)) = v.get("transitions") {
            states = m.keys().cloned().collect();
        } else {
            for (s, _, d) in &rows {
                for q in [s, d] {
                    if !states.contains(q) {
                        states.push(q.clone());
                    }
                }
            }
        }
    }
    let accepting = strings(v.get("accepting"), "accepting")?;
    build(name, alphabet, &states, &initial, &accepting, &rows)
}

/// A JSON value as a name: strings as they are, numbers as written.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The DFA of named states and transitions; an incomplete or inconsistent one is an error.
fn build(
    name: &str,
    alphabet: Vec<String>,
    states: &[String],
    initial: &str,
    accepting: &[String],
    rows: &[(String, String, String)],
) -> Result<Dfa, FileError> {
    let bad = |what: String| FileError(format!("{name}: {what}"));
    let mut number: HashMap<&str, usize> = HashMap::new();
    for s in states {
        let n = number.len();
        number.entry(s.as_str()).or_insert(n);
    }
    let symbol: HashMap<&str, usize> = alphabet
        .iter()
        .enumerate()
        .map(|(i, a)| (a.as_str(), i))
        .collect();
    let state = |s: &str| {
        number
            .get(s)
            .copied()
            .ok_or_else(|| bad(format!("state `{s}` is not among the states")))
    };
    let k = alphabet.len();
    let mut dfa = Dfa::new(alphabet.clone(), number.len());
    dfa.initial = state(initial)?;
    for a in accepting {
        dfa.accepting[state(a)?] = true;
    }
    let mut set = vec![false; number.len() * k];
    for (s, a, d) in rows {
        let (p, q) = (state(s)?, state(d)?);
        let a = *symbol.get(a.as_str()).ok_or_else(|| {
            bad(format!(
                "symbol `{a}` (from state `{s}`) is not in the alphabet"
            ))
        })?;
        if set[p * k + a] && dfa.delta[p * k + a] != q {
            return Err(bad(format!(
                "state `{s}` has two transitions by `{}`",
                alphabet[a]
            )));
        }
        set[p * k + a] = true;
        dfa.delta[p * k + a] = q;
    }
    for s in states {
        let p = number[s.as_str()];
        let missing: Vec<&str> = (0..k)
            .filter(|&a| !set[p * k + a])
            .map(|a| alphabet[a].as_str())
            .collect();
        if !missing.is_empty() {
            return Err(bad(format!(
                "the DFA is not complete: state `{s}` has no transition by {}",
                missing.join(", ")
            )));
        }
    }
    Ok(dfa)
}

/// DOT as AALpy and LearnLib write it, read line by line: `__start0 -> s` gives the initial
/// state; a line with `label` and no `->` declares a state (accepting if it says
/// `doublecircle`); a line with `->` is a transition whose `label` is its symbol. The
/// alphabet is the symbols in the order they first appear.
pub fn read_dot(name: &str, text: &str) -> Result<Dfa, FileError> {
    let mut states: Vec<String> = Vec::new();
    let mut accepting = Vec::new();
    let mut initial = None;
    let mut alphabet: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at =
            |col: usize, what: &str| FileError(format!("{name}:{}:{}: {what}", n + 1, col + 1));
        let l = line.trim();
        if let Some(arrow) = l.find("->") {
            let src = identifier(l[..arrow].trim());
            let rest = l[arrow + 2..].trim_start();
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '[' || c == ';')
                .unwrap_or(rest.len());
            let dst = identifier(&rest[..end]);
            if src.is_empty() || dst.is_empty() {
                return Err(at(arrow, "expected `source -> target`"));
            }
            if src.starts_with("__start") {
                initial = Some(dst);
                continue;
            }
            let Some(label) = rvmon_core::text::dot_label(rest) else {
                return Err(at(
                    arrow,
                    "expected a transition with a `label` (its symbol)",
                ));
            };
            // (A Mealy label `a/o`: the input before the slash.)
            let symbol = label
                .split('/')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            if !alphabet.contains(&symbol) {
                alphabet.push(symbol.clone());
            }
            for q in [&src, &dst] {
                if !states.contains(q) {
                    states.push(q.clone());
                }
            }
            rows.push((src, symbol, dst));
        } else if l.contains("label") && !l.starts_with("__start") && !l.starts_with("digraph") {
            let id = identifier(l.split('[').next().unwrap_or_default().trim());
            if id.is_empty() || matches!(id.as_str(), "node" | "edge" | "graph") {
                continue;
            }
            if !states.contains(&id) {
                states.push(id.clone());
            }
            if l.contains("doublecircle") {
                accepting.push(id);
            }
        }
    }
    let initial = initial.ok_or_else(|| {
        FileError(format!(
            "{name}: no initial state (expected `__start0 -> STATE`)"
        ))
    })?;
    build(name, alphabet, &states, &initial, &accepting, &rows)
}

/// A DOT identifier without its quotes.
fn identifier(s: &str) -> String {
    s.trim().trim_matches('"').to_string()
}

/// The DFA as AALpy's JSON, states named `s0, s1, …` in canonical (breadth-first) order.
pub fn write_json(dfa: &Dfa) -> String {
    let d = dfa.canonical();
    let name = |q: usize| format!("s{q}");
    let mut transitions = serde_json::Map::new();
    for q in 0..d.states() {
        let row: serde_json::Map<String, Value> = (0..d.symbols())
            .map(|a| (d.alphabet[a].clone(), Value::String(name(d.step(q, a)))))
            .collect();
        transitions.insert(name(q), Value::Object(row));
    }
    let v = serde_json::json!({
        "states": (0..d.states()).map(name).collect::<Vec<_>>(),
        "alphabet": d.alphabet,
        "initial": name(d.initial),
        "accepting": (0..d.states()).filter(|&q| d.accepting[q]).map(name).collect::<Vec<_>>(),
        "transitions": transitions,
    });
    let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
    text.push('\n');
    text
}

/// The DFA as AALpy's DOT.
pub fn write_dot(dfa: &Dfa) -> String {
    let d = dfa.canonical();
    let mut out = String::from("digraph learnedModel {\n");
    for q in 0..d.states() {
        let shape = if d.accepting[q] {
            "doublecircle"
        } else {
            "circle"
        };
        out.push_str(&format!("s{q} [label=\"s{q}\", shape={shape}];\n"));
    }
    for q in 0..d.states() {
        for a in 0..d.symbols() {
            let label = d.alphabet[a].replace('"', "\\\"");
            out.push_str(&format!("s{q} -> s{} [label=\"{label}\"];\n", d.step(q, a)));
        }
    }
    out.push_str("__start0 [label=\"\", shape=none];\n__start0 -> s0  [label=\"\"];\n}\n");
    out
}
