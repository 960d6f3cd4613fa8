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
    let zip = |a: NodeId, b: NodeId, g: &dyn Fn(f64, f64) -> f64| -> Vec<f64> {
        vals[a]
            .iter()
            .zip(&vals[b])
            .map(|(&p, &q)| g(p, q))
            .collect()
    };
    let map =
        |a: NodeId, g: &dyn Fn(f64) -> f64| -> Vec<f64> { vals[a].iter().map(|&p| g(p)).collect() };
    match *node {
        Node::Signal(s) => signals[s].clone(),
        Node::Const(c) => vec![c; n],
        Node::Arith(op, a, b) => zip(a, b, &|p, q| match op {
            Arith::Add => p + q,
            Arith::Sub => p - q,
            Arith::Mul => p * q,
            Arith::Div => p / q,
        }),
        Node::Fun(Fun::Abs, a) => map(a, &f64::abs),
        Node::Fun(Fun::Sqrt, a) => map(a, &f64::sqrt),
        Node::Fun(Fun::Exp, a) => map(a, &f64::exp),
        Node::Pow(a, b) => zip(a, b, &f64::powf),
        Node::Cmp(op, a, b) => zip(a, b, &|p, q| match op {
            Cmp::Greater => p - q,
            Cmp::Less => q - p,
            Cmp::Equal => -(p - q).abs(),
            Cmp::NotEqual => (p - q).abs(),
        }),
        Node::Not(a) => map(a, &|p| -p),
        Node::Connective(op, a, b) => zip(a, b, &|p, q| match op {
            Connective::And => pmin(p, q),
            Connective::Or => pmax(p, q),
            Connective::Implies => pmax(-p, q),
            Connective::Iff => -(p - q).abs(),
            Connective::Xor => (p - q).abs(),
        }),
        Node::Temporal(op, w, a) => temporal(op, w, &vals[a]),
        Node::Until(w, a, b) => until(w, &vals[a], &vals[b]),
        Node::Since(w, a, b) => since(w, &vals[a], &vals[b]),
        Node::Shift(op, a) => shift(op, &vals[a]),
        Node::Rise(a) => {
            let s = &vals[a];
            (0..n)
                .map(|i| pmin(-if i == 0 { f64::NEG_INFINITY } else { s[i - 1] }, s[i]))
                .collect()
        }
        Node::Fall(a) => {
            let s = &vals[a];
            (0..n)
                .map(|i| pmin(if i == 0 { f64::INFINITY } else { s[i - 1] }, -s[i]))
                .collect()
        }
    }
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
    // Past the ends a window holds pads (`+inf` for a minimum, `-inf` for a maximum): after
    // the samples for a future window, which leaves the fold unchanged, and before them for
    // a past one, where the fold starts from the pad (a NaN first sample is then passed
    // over, as in rtamt). So the window is cut to the trace, and a bound of any size costs
    // no more than the trace.
    let last = n as i128 - 1;
    let (a, b) = (i128::from(a), i128::from(b));
    for (i, o) in out.iter_mut().enumerate() {
        let i = i as i128;
        let (lo, hi) = if future {
            (i + a, i + b)
        } else {
            (i - b, i - a)
        };
        let (first, end) = (lo.max(0), hi.min(last));
        if first > end {
            *o = pad;
            continue;
        }
        let mut acc = if lo < 0 {
            f(pad, s[0])
        } else {
            s[first as usize]
        };
        for k in first + 1..=end {
            acc = f(acc, s[k as usize]);
        }
        *o = acc;
    }
    out
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
    // The witnesses t past the end contribute `-inf`: they are left out. For each t in
    // `[i+a, i+b]`, min(r(t), the fold of l over t-1 down to i) is built upwards (each t
    // prepends l(t-1) to the fold), then folded downwards, in rtamt's order.
    let (a, b) = (a as usize, b as usize);
    let mut v = Vec::new();
    for (i, o) in out.iter_mut().enumerate() {
        let (lo, hi) = (i.saturating_add(a), i.saturating_add(b).min(n - 1));
        if lo > hi {
            continue;
        }
        v.clear();
        let mut c = f64::INFINITY;
        for t in i..=hi {
            if t >= lo {
                v.push(pmin(c, r[t]));
            }
            c = prepend_min(c, l[t]);
        }
        *o = v
            .iter()
            .rev()
            .fold(f64::NEG_INFINITY, |acc, &x| pmax(acc, x));
    }
    out
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
    // The witnesses t before the start contribute `-inf`: they are left out. For each t in
    // `[i-b, i-a]`, min(r(t), the fold of l over t+1 up to i) is built downwards (each t
    // prepends l(t+1)), then folded upwards, in rtamt's order.
    let (a, b) = (a as usize, b as usize);
    let mut v = Vec::new();
    for (i, o) in out.iter_mut().enumerate() {
        let Some(hi) = i.checked_sub(a) else {
            continue;
        };
        let lo = i.saturating_sub(b);
        v.clear();
        let mut c = f64::INFINITY;
        for t in (lo..=i).rev() {
            if t <= hi {
                v.push(pmin(c, r[t]));
            }
            c = prepend_min(c, l[t]);
        }
        *o = v
            .iter()
            .rev()
            .fold(f64::NEG_INFINITY, |acc, &x| pmax(acc, x));
    }
    out
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
