//! Discrete-time robustness over a whole trace, straight from the definitions, as rtamt
//! computes it offline (`StlDiscreteTimeSpecification.evaluate`).
//!
//! Every node becomes one value per sample, operands first. Samples are indices: a window
//! `[a, b]` counts samples, whatever the `time` column says (rtamt's default sampling period
//! of 1 s). At the ends of the trace a window keeps the samples that exist; an empty one is
//! `+inf` for `always`/`historically` and `-inf` for `eventually`/`once`/`until`/`since`;
//! `next`/`prev` are `+inf` past the ends (`s_next`/`s_prev`: `-inf`).
//!
//! Minima and maxima are Python's, to give rtamt's numbers to the last bit: the first of equal
//! values is kept (so `0.0` and `-0.0` come out as rtamt prints them) and a NaN is kept only
//! when it comes first ([`pmin`], [`pmax`]). Division by zero, `sqrt` of a negative number and
//! overflows give IEEE's infinities and NaN, where rtamt stops with a Python exception.

use crate::ast::*;

/// Python's `min(p, q)`: `q` only if it is strictly smaller.
#[inline]
pub fn pmin(p: f64, q: f64) -> f64 {
    if q < p {
        q
    } else {
        p
    }
}

/// Python's `max(p, q)`: `q` only if it is strictly larger.
#[inline]
pub fn pmax(p: f64, q: f64) -> f64 {
    if q > p {
        q
    } else {
        p
    }
}

/// The robustness of `f` at every sample of `signals` (one column per [`Formula::signals`],
/// all of the same length).
pub fn robustness(f: &Formula, signals: &[Vec<f64>]) -> Vec<f64> {
    let n = signals.first().map_or(0, Vec::len);
    let mut vals: Vec<Vec<f64>> = Vec::with_capacity(f.nodes.len());
    for node in &f.nodes {
        let v = node_values(node, &vals, signals, n);
        vals.push(v);
    }
    vals.swap_remove(f.root)
}

fn node_values(node: &Node, vals: &[Vec<f64>], signals: &[Vec<f64>], n: usize) -> Vec<f64> {
    match *node {
        Node::Signal(s) => signals[s].clone(),
        Node::Temporal(op, w, a) => temporal(op, w, &vals[a]),
        Node::Until(w, a, b) => until(w, &vals[a], &vals[b]),
        Node::Since(w, a, b) => since(w, &vals[a], &vals[b]),
        Node::Shift(op, a) => shift(op, &vals[a]),
        _ => (0..n)
            .map(|i| {
                let before = |c: NodeId| (i > 0).then(|| vals[c][i - 1]);
                pointwise(node, |c| vals[c][i], before).expect("a pointwise operator")
            })
            .collect(),
    }
}

/// A node's value at a sample from its operands' values there (`now`) and, for `rise` and
/// `fall`, the sample before (`before`: `None` at the first sample); `None` for the operators
/// that read windows or other samples.
#[inline]
pub(crate) fn pointwise(
    node: &Node,
    now: impl Fn(NodeId) -> f64,
    before: impl Fn(NodeId) -> Option<f64>,
) -> Option<f64> {
    Some(match *node {
        Node::Const(c) => c,
        Node::Arith(op, a, b) => {
            let (p, q) = (now(a), now(b));
            match op {
                Arith::Add => p + q,
                Arith::Sub => p - q,
                Arith::Mul => p * q,
                Arith::Div => p / q,
            }
        }
        Node::Fun(Fun::Abs, a) => now(a).abs(),
        Node::Fun(Fun::Sqrt, a) => now(a).sqrt(),
        Node::Fun(Fun::Exp, a) => now(a).exp(),
        Node::Pow(a, b) => now(a).powf(now(b)),
        Node::Cmp(op, a, b) => {
            let (p, q) = (now(a), now(b));
            match op {
                Cmp::Greater => p - q,
                Cmp::Less => q - p,
                Cmp::Equal => -(p - q).abs(),
                Cmp::NotEqual => (p - q).abs(),
            }
        }
        Node::Not(a) => -now(a),
        Node::Connective(op, a, b) => {
            let (p, q) = (now(a), now(b));
            match op {
                Connective::And => pmin(p, q),
                Connective::Or => pmax(p, q),
                Connective::Implies => pmax(-p, q),
                Connective::Iff => -(p - q).abs(),
                Connective::Xor => (p - q).abs(),
            }
        }
        // rtamt reads `-inf` before the first sample for `rise`, `+inf` for `fall`.
        Node::Rise(a) => pmin(-before(a).unwrap_or(f64::NEG_INFINITY), now(a)),
        Node::Fall(a) => pmin(before(a).unwrap_or(f64::INFINITY), -now(a)),
        _ => return None,
    })
}

fn temporal(op: Window1, w: Window, s: &[f64]) -> Vec<f64> {
    let future = matches!(op, Window1::Always | Window1::Eventually);
    // PERF: one copy per fold, so that `pmin`/`pmax` inline (through a function pointer
    // they were a quarter of the time).
    match op {
        Window1::Always | Window1::Historically => fold_window(pmin, f64::INFINITY, future, w, s),
        Window1::Eventually | Window1::Once => fold_window(pmax, f64::NEG_INFINITY, future, w, s),
    }
}

fn fold_window(
    f: impl Fn(f64, f64) -> f64,
    pad: f64,
    future: bool,
    w: Window,
    s: &[f64],
) -> Vec<f64> {
    let n = s.len();
    let mut out = vec![0.0; n];
    let Some((a, b)) = w else {
        let mut cur = pad;
        if future {
            for i in (0..n).rev() {
                cur = f(s[i], cur);
                out[i] = cur;
            }
        } else {
            for i in 0..n {
                cur = f(s[i], cur);
                out[i] = cur;
            }
        }
        return out;
    };
    let end = n as u64 - 1;
    for (i, o) in out.iter_mut().enumerate() {
        let get = |k: u64| s[k as usize];
        *o = if future {
            future_at(&f, pad, (a, b), i as u64, end, get)
        } else {
            past_at(&f, pad, (a, b), i as u64, get)
        };
    }
    out
}

/// A bounded future window's fold at `j`: over `j+a ..= j+b`, cut at `end` (the last sample
/// there is, or `u64::MAX` while the trace goes on). Past the end a window holds pads, after
/// the samples, which leave the fold unchanged: so the window is cut, and a bound of any
/// size costs no more than the trace. An empty window is the pad.
#[inline]
pub(crate) fn future_at(
    f: impl Fn(f64, f64) -> f64,
    pad: f64,
    (a, b): (u64, u64),
    j: u64,
    end: u64,
    get: impl Fn(u64) -> f64,
) -> f64 {
    let (lo, hi) = (j.saturating_add(a), j.saturating_add(b).min(end));
    if lo > hi {
        return pad;
    }
    let mut acc = get(lo);
    for k in lo + 1..=hi {
        acc = f(acc, get(k));
    }
    acc
}

/// A bounded past window's fold at `j`: over `j-b ..= j-a`. Before the start a window holds
/// pads, before the samples, so the fold starts from the pad (a NaN first sample is then
/// passed over, as in rtamt).
#[inline]
pub(crate) fn past_at(
    f: impl Fn(f64, f64) -> f64,
    pad: f64,
    (a, b): (u64, u64),
    j: u64,
    get: impl Fn(u64) -> f64,
) -> f64 {
    let Some(hi) = j.checked_sub(a) else {
        return pad;
    };
    let (mut acc, first) = match j.checked_sub(b) {
        Some(lo) => (get(lo), lo),
        None => (f(pad, get(0)), 0),
    };
    for k in first + 1..=hi {
        acc = f(acc, get(k));
    }
    acc
}

/// The running `pmin` fold of a bounded `until`/`since` when its sequence gains `v` as a
/// new first element: NaNs never enter a fold that starts from `+inf`, and a tie keeps the
/// first element.
#[inline]
fn prepend_min(c: f64, v: f64) -> f64 {
    if v.is_nan() || c < v {
        c
    } else {
        v
    }
}

/// `l until[a,b] r` at `i`: max over t in `[i+a, i+b]`, descending, of min(r(t), the min of
/// l over `[i, t)` folded from `t-1` down); `l` is `+inf` and `r` `-inf` past the end.
fn until(w: Window, l: &[f64], r: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut out = vec![f64::NEG_INFINITY; n];
    let Some((a, b)) = w else {
        let mut cur = f64::NEG_INFINITY;
        for i in (0..n).rev() {
            cur = pmax(pmin(l[i], cur), r[i]);
            out[i] = cur;
        }
        return out;
    };
    let mut v = Vec::new();
    for (i, o) in out.iter_mut().enumerate() {
        *o = until_at(
            (a, b),
            i as u64,
            n as u64 - 1,
            |k| l[k as usize],
            |k| r[k as usize],
            &mut v,
        );
    }
    out
}

/// `l until[a,b] r` at `j`, the samples cut at `end` (or `u64::MAX` while the trace goes on).
/// The witnesses t past the end contribute `-inf`: they are left out. For each t in
/// `[j+a, j+b]`, min(r(t), the fold of l over t-1 down to j) is built upwards (each t
/// prepends l(t-1) to the fold), then folded downwards, in rtamt's order.
pub(crate) fn until_at(
    (a, b): (u64, u64),
    j: u64,
    end: u64,
    l: impl Fn(u64) -> f64,
    r: impl Fn(u64) -> f64,
    v: &mut Vec<f64>,
) -> f64 {
    let (lo, hi) = (j.saturating_add(a), j.saturating_add(b).min(end));
    if lo > hi {
        return f64::NEG_INFINITY;
    }
    v.clear();
    let mut c = f64::INFINITY;
    for t in j..=hi {
        if t >= lo {
            v.push(pmin(c, r(t)));
        }
        c = prepend_min(c, l(t));
    }
    v.iter()
        .rev()
        .fold(f64::NEG_INFINITY, |acc, &x| pmax(acc, x))
}

/// `l since[a,b] r` at `i`: max over t in `[i-b, i-a]`, ascending, of min(r(t), the min of
/// l over `(t, i]` folded upwards); `l` is `+inf` and `r` `-inf` before the start.
fn since(w: Window, l: &[f64], r: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut out = vec![f64::NEG_INFINITY; n];
    let Some((a, b)) = w else {
        let mut cur = f64::NEG_INFINITY;
        for i in 0..n {
            cur = pmax(pmin(l[i], cur), r[i]);
            out[i] = cur;
        }
        return out;
    };
    let mut v = Vec::new();
    for (i, o) in out.iter_mut().enumerate() {
        *o = since_at(
            (a, b),
            i as u64,
            |k| l[k as usize],
            |k| r[k as usize],
            &mut v,
        );
    }
    out
}

/// `l since[a,b] r` at `j`. The witnesses t before the start contribute `-inf`: they are
/// left out. For each t in `[j-b, j-a]`, min(r(t), the fold of l over t+1 up to j) is built
/// downwards (each t prepends l(t+1)), then folded upwards, in rtamt's order.
pub(crate) fn since_at(
    (a, b): (u64, u64),
    j: u64,
    l: impl Fn(u64) -> f64,
    r: impl Fn(u64) -> f64,
    v: &mut Vec<f64>,
) -> f64 {
    let Some(hi) = j.checked_sub(a) else {
        return f64::NEG_INFINITY;
    };
    let lo = j.saturating_sub(b);
    v.clear();
    let mut c = f64::INFINITY;
    for t in (lo..=j).rev() {
        if t <= hi {
            v.push(pmin(c, r(t)));
        }
        c = prepend_min(c, l(t));
    }
    v.iter()
        .rev()
        .fold(f64::NEG_INFINITY, |acc, &x| pmax(acc, x))
}

fn shift(op: Shift, s: &[f64]) -> Vec<f64> {
    let n = s.len();
    let edge = match op {
        Shift::Next | Shift::Prev => f64::INFINITY,
        Shift::StrongNext | Shift::StrongPrev => f64::NEG_INFINITY,
    };
    (0..n)
        .map(|i| match op {
            Shift::Next | Shift::StrongNext => s.get(i + 1).copied().unwrap_or(edge),
            Shift::Prev | Shift::StrongPrev if i == 0 => edge,
            Shift::Prev | Shift::StrongPrev => s[i - 1],
        })
        .collect()
}
