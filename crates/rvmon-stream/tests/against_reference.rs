//! The online engine against a brute-force evaluator written straight from Lola's semantics
//! (paper 06 §2): every stream has a value at every position; `s[k, d]` is `s` at position
//! `i + k` if that exists and `d` otherwise; outputs are solved by recursion over positions.
//! Random specifications mix past and future offsets, self-references and triggers; those
//! the analysis accepts must give the same value at every position, and the triggers must be
//! reported in event order.

use std::collections::HashMap;

use proptest::prelude::*;
use rvmon_stream::ast::{BinOp, Expr, ExprKind, Lit, UnOp};
use rvmon_stream::engine::Event;
use rvmon_stream::value::Val;
use rvmon_stream::{compile, parse_spec, Step, StreamEngine};

fn bool_expr(depth: u32) -> BoxedStrategy<String> {
    let stream = prop::sample::select(vec!["x", "y0", "y1"]);
    let leaf = prop_oneof![
        stream.clone().prop_map(String::from),
        Just("true".to_string()),
        Just("false".to_string()),
        (
            stream,
            prop::sample::select(vec![-2i64, -1, 1, 2]),
            any::<bool>()
        )
            .prop_map(|(s, k, d)| format!("{s}[{k}, {d}]")),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let b = || bool_expr(depth - 1);
    let i = || int_expr(depth - 1);
    prop_oneof![
        2 => leaf,
        1 => (b(), b()).prop_map(|(a, c)| format!("({a} && {c})")),
        1 => (b(), b()).prop_map(|(a, c)| format!("({a} || {c})")),
        1 => (b(), b()).prop_map(|(a, c)| format!("({a} -> {c})")),
        1 => b().prop_map(|a| format!("!{a}")),
        1 => (i(), i()).prop_map(|(a, c)| format!("({a} < {c})")),
        1 => (i(), i()).prop_map(|(a, c)| format!("({a} == {c})")),
        1 => (b(), b(), b()).prop_map(|(c, a, d)| format!("(if {c} then {a} else {d})")),
    ]
    .boxed()
}

fn int_expr(depth: u32) -> BoxedStrategy<String> {
    let stream = prop::sample::select(vec!["n", "y2", "y3"]);
    let leaf = prop_oneof![
        stream.clone().prop_map(String::from),
        (0i64..3).prop_map(|v| v.to_string()),
        (stream, prop::sample::select(vec![-2i64, -1, 1, 2]), 0i64..3)
            .prop_map(|(s, k, d)| format!("{s}[{k}, {d}]")),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let b = || bool_expr(depth - 1);
    let i = || int_expr(depth - 1);
    prop_oneof![
        2 => leaf,
        1 => (i(), i()).prop_map(|(a, c)| format!("({a} + {c})")),
        1 => (i(), i()).prop_map(|(a, c)| format!("({a} - {c})")),
        1 => (b(), i(), i()).prop_map(|(c, a, d)| format!("(if {c} then {a} else {d})")),
    ]
    .boxed()
}

fn spec() -> impl Strategy<Value = String> {
    (bool_expr(2), bool_expr(2), int_expr(2), int_expr(2)).prop_map(|(a, b, c, d)| {
        format!(
            "input x: Bool\ninput n: Int64\n\
             output y0: Bool @ (x && n) := {a}\noutput y1: Bool @ (x && n) := {b}\n\
             output y2: Int64 @ (x && n) := {c}\noutput y3: Int64 @ (x && n) := {d}\n\
             trigger y0 \"zero\"\ntrigger y1 \"one\""
        )
    })
}

/// Paper semantics by recursion with memoisation; `None` on a value that depends on itself.
struct Reference<'a> {
    defs: HashMap<String, &'a Expr>,
    xs: &'a [(bool, i64)],
    memo: HashMap<(String, usize), Option<Val>>,
}

impl Reference<'_> {
    fn value(&mut self, s: &str, i: usize) -> Option<Val> {
        match s {
            "x" => return Some(Val::Bool(self.xs[i].0)),
            "n" => return Some(Val::Int(self.xs[i].1)),
            _ => {}
        }
        let key = (s.to_string(), i);
        if let Some(v) = self.memo.get(&key) {
            return v.clone(); // `None` while being computed: a cycle
        }
        self.memo.insert(key.clone(), None);
        let e = self.defs[s];
        let v = self.eval(e, i)?;
        self.memo.insert(key, Some(v.clone()));
        Some(v)
    }

    /// `Some(None)`: absent (an offset past either end).
    fn eval_opt(&mut self, e: &Expr, i: usize) -> Option<Option<Val>> {
        match &e.kind {
            ExprKind::Offset { stream, by } => {
                let j = i as i64 + by;
                if j < 0 || j >= self.xs.len() as i64 {
                    Some(None)
                } else {
                    self.value(stream, j as usize).map(Some)
                }
            }
            _ => self.eval(e, i).map(Some),
        }
    }

    fn eval(&mut self, e: &Expr, i: usize) -> Option<Val> {
        Some(match &e.kind {
            ExprKind::Lit(Lit::Bool(b)) => Val::Bool(*b),
            ExprKind::Lit(Lit::Int(v)) => Val::Int(*v),
            ExprKind::Stream(s) => self.value(s, i)?,
            ExprKind::Default(a, d) => match self.eval_opt(a, i)? {
                Some(v) => v,
                None => self.eval(d, i)?,
            },
            ExprKind::Unary(UnOp::Not, a) => Val::Bool(!self.eval(a, i)?.as_bool()),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.eval(a, i)?, self.eval(b, i)?);
                match (op, x, y) {
                    (BinOp::And, x, y) => Val::Bool(x.as_bool() && y.as_bool()),
                    (BinOp::Or, x, y) => Val::Bool(x.as_bool() || y.as_bool()),
                    (BinOp::Implies, x, y) => Val::Bool(!x.as_bool() || y.as_bool()),
                    (BinOp::Lt, Val::Int(x), Val::Int(y)) => Val::Bool(x < y),
                    (BinOp::Eq, Val::Int(x), Val::Int(y)) => Val::Bool(x == y),
                    (BinOp::Add, Val::Int(x), Val::Int(y)) => Val::Int(x.wrapping_add(y)),
                    (BinOp::Sub, Val::Int(x), Val::Int(y)) => Val::Int(x.wrapping_sub(y)),
                    other => panic!("not generated: {other:?}"),
                }
            }
            ExprKind::Ite(c, a, b) => {
                if self.eval(c, i)?.as_bool() {
                    self.eval(a, i)?
                } else {
                    self.eval(b, i)?
                }
            }
            other => panic!("not generated: {other:?}"),
        })
    }
}

fn trace() -> impl Strategy<Value = Vec<(bool, i64)>> {
    prop::collection::vec((any::<bool>(), 0i64..3), 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_lola_semantics(text in spec(), xs in trace()) {
        let Ok(prog) = compile("p.lola", &text) else {
            return Ok(()); // not well-formed
        };
        let ast = parse_spec("p.lola", &text).unwrap();
        let mut reference = Reference {
            defs: ast.outputs.iter().map(|o| (o.name.clone(), &o.expr)).collect(),
            xs: &xs,
            memo: HashMap::new(),
        };
        let mut engine = StreamEngine::new(prog);
        engine.record_outputs();
        let mut fired = Vec::new();
        for (i, &(x, n)) in xs.iter().enumerate() {
            let ev = Event { time: i as i64, values: vec![Some(Val::Bool(x)), Some(Val::Int(n))] };
            engine.step(&ev, &mut fired).unwrap();
        }
        engine.finish(&mut fired).unwrap();
        let mut got: HashMap<(usize, u64), Val> = HashMap::new();
        for d in engine.take_decided() {
            let (k, idx, event, v) = (d.output, d.index, d.event, d.value);
            prop_assert_eq!(idx, event, "one value per event in a synchronous specification");
            prop_assert!(got.insert((k, idx), v).is_none(), "decided twice");
        }
        let mut expected_firings = Vec::new();
        for i in 0..xs.len() {
            for (k, name) in ["y0", "y1", "y2", "y3"].iter().enumerate() {
                let want = reference.value(name, i);
                prop_assert!(want.is_some(), "the analysis accepted a value that depends on itself: {} at {}\n{}", name, i, text);
                prop_assert_eq!(got.get(&(k, i as u64)), want.as_ref(), "{} at {}\n{}", name, i, text);
            }
            for (t, name) in ["y0", "y1"].iter().enumerate() {
                if reference.value(name, i) == Some(Val::Bool(true)) {
                    expected_firings.push((i as u64, t));
                }
            }
        }
        let firings: Vec<(u64, usize)> = fired.iter().map(|f| (f.event, f.trigger)).collect();
        prop_assert_eq!(firings, expected_firings, "{}", text);
    }
}

/// An efficiently monitorable specification with past and future offsets holds a bounded
/// number of values however long the trace.
#[test]
fn memory_does_not_grow_with_the_trace() {
    let spec = "input x: Bool\ninput n: Int64\n\
                output s := n + s[-1, 0] - n[-3, 0]\n\
                output ahead := x[3, false] && !x[-2, true]\n\
                output u := x || (ahead && u[-1, false])\n\
                trigger ahead && s > 4 \"window\"";
    let prog = compile("m.lola", spec).unwrap();
    assert!(prog.unbounded_cycle.is_none());
    let mut engine = StreamEngine::new(prog);
    let mut fired = Vec::new();
    let mut peak = 0;
    for i in 0..200_000i64 {
        let ev = Event {
            time: i,
            values: vec![Some(Val::Bool(i % 7 == 0)), Some(Val::Int(i % 5))],
        };
        engine.step(&ev, &mut fired).unwrap();
        fired.clear();
        peak = peak.max(engine.retained());
    }
    assert!(peak < 40, "held {peak} values");
}
