//! The dependency graph of a stream specification: an edge `x -> s` of weight `k` when `x`
//! reads `s`'s value `k` steps away. Well-formedness (no closed walk of weight 0), efficient
//! monitorability (no positive closed walk), latency and past depth per stream, and an
//! evaluation order for the reads of weight 0.

use rustc_hash::FxHashMap;

use crate::analysis::{Sid, StreamReport};

/// Strongly connected components (Tarjan), each a list of streams.
fn sccs(edges: &[Vec<(Sid, i64)>]) -> Vec<Vec<Sid>> {
    struct St<'a> {
        edges: &'a [Vec<(Sid, i64)>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<Sid>,
        next: usize,
        out: Vec<Vec<Sid>>,
    }
    fn visit(v: Sid, st: &mut St) {
        st.index[v] = Some(st.next);
        st.low[v] = st.next;
        st.next += 1;
        st.stack.push(v);
        st.on[v] = true;
        for &(w, _) in &st.edges[v] {
            match st.index[w] {
                None => {
                    visit(w, st);
                    st.low[v] = st.low[v].min(st.low[w]);
                }
                Some(i) if st.on[w] => st.low[v] = st.low[v].min(i),
                _ => {}
            }
        }
        if Some(st.low[v]) == st.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = st.stack.pop().expect("on stack");
                st.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            st.out.push(comp);
        }
    }
    let n = edges.len();
    let mut st = St {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if st.index[v].is_none() {
            visit(v, &mut st);
        }
    }
    st.out
}

/// Longest-path potentials within `comp` with weights multiplied by `sign`; `None` if a
/// cycle of positive (signed) weight exists, with one such cycle.
fn potentials(
    edges: &[Vec<(Sid, i64)>],
    comp: &[Sid],
    sign: i64,
) -> Result<FxHashMap<Sid, i64>, Vec<Sid>> {
    let inside: rustc_hash::FxHashSet<Sid> = comp.iter().copied().collect();
    let mut pot: FxHashMap<Sid, i64> = comp.iter().map(|&v| (v, 0)).collect();
    let mut pred: FxHashMap<Sid, Sid> = FxHashMap::default();
    for round in 0..=comp.len() {
        let mut changed = None;
        for &u in comp {
            for &(v, w) in &edges[u] {
                if !inside.contains(&v) {
                    continue;
                }
                let cand = pot[&u] + sign * w;
                if cand > pot[&v] {
                    pot.insert(v, cand);
                    pred.insert(v, u);
                    changed = Some(v);
                }
            }
        }
        match changed {
            None => return Ok(pot),
            Some(v) if round == comp.len() => {
                // Walk back to a vertex on the cycle, then collect it.
                let mut x = v;
                for _ in 0..comp.len() {
                    match pred.get(&x) {
                        Some(&p) => x = p,
                        None => return Err(comp.to_vec()),
                    }
                }
                let mut cycle = vec![x];
                let mut y = x;
                while let Some(&p) = pred.get(&y) {
                    if p == x || cycle.len() > comp.len() {
                        break;
                    }
                    cycle.push(p);
                    y = p;
                }
                cycle.reverse();
                return Err(cycle);
            }
            _ => {}
        }
    }
    Ok(pot)
}

fn cycle_text(cycle: &[Sid], names: &[String]) -> String {
    let mut parts: Vec<&str> = cycle.iter().map(|&s| names[s].as_str()).collect();
    parts.push(names[cycle[0]].as_str());
    parts.join(" -> ")
}

/// Rejects a dependency graph with a closed walk of weight 0: `Err` names a cycle on it, with
/// the stream where the message should point.
pub(crate) fn check_well_formed(
    edges: &[Vec<(Sid, i64)>],
    names: &[String],
) -> Result<(), (Sid, String)> {
    for comp in sccs(edges) {
        let has_cycle = comp.len() > 1 || edges[comp[0]].iter().any(|&(v, _)| v == comp[0]);
        if !has_cycle {
            continue;
        }
        let pos = potentials(edges, &comp, 1);
        let neg = potentials(edges, &comp, -1);
        let (pot, sign) = match (&pos, &neg) {
            (Err(p), Err(_)) => {
                return Err((p[0], format!(
                    "specification is not well-formed: the dependency cycle {} can be combined with a cycle of the opposite weight into one of weight 0, so some value would depend on itself",
                    cycle_text(p, names)
                )))
            }
            (Ok(p), _) => (p, 1),
            (Err(_), Ok(p)) => (p, -1),
        };
        // With potentials of a longest path, a weight-0 cycle uses tight edges only.
        let tight: Vec<Vec<(Sid, i64)>> = (0..edges.len())
            .map(|u| {
                if !pot.contains_key(&u) {
                    return Vec::new();
                }
                edges[u]
                    .iter()
                    .filter(|&&(v, w)| pot.get(&v).is_some_and(|pv| *pv == pot[&u] + sign * w))
                    .copied()
                    .collect()
            })
            .collect();
        for c in sccs(&tight) {
            let cyclic = c.len() > 1 || tight[c[0]].iter().any(|&(v, _)| v == c[0]);
            if cyclic {
                let cycle = find_cycle(&tight, &c);
                return Err((cycle[0], format!(
                    "specification is not well-formed: the dependency cycle {} has weight 0, so a value would depend on itself",
                    cycle_text(&cycle, names)
                )));
            }
        }
    }
    Ok(())
}

/// A simple cycle inside the strongly connected `comp`.
fn find_cycle(edges: &[Vec<(Sid, i64)>], comp: &[Sid]) -> Vec<Sid> {
    let inside: rustc_hash::FxHashSet<Sid> = comp.iter().copied().collect();
    let start = *comp.iter().min().expect("non-empty");
    let mut path = vec![start];
    let mut seen = rustc_hash::FxHashSet::default();
    seen.insert(start);
    let mut v = start;
    loop {
        let next = edges[v]
            .iter()
            .map(|e| e.0)
            .find(|w| inside.contains(w))
            .expect("strongly connected");
        if let Some(p) = path.iter().position(|&x| x == next) {
            return path[p..].to_vec();
        }
        path.push(next);
        seen.insert(next);
        v = next;
    }
}

/// Latency and past memory per stream, and a positive cycle if there is one.
pub(crate) fn report(
    edges: &[Vec<(Sid, i64)>],
    names: &[String],
    _n_in: usize,
) -> (Vec<StreamReport>, Option<Vec<String>>) {
    let n = edges.len();
    let mut keep_past = vec![0u64; n];
    for e in edges {
        for &(s, w) in e {
            if w < 0 {
                keep_past[s] = keep_past[s].max(w.unsigned_abs());
            }
        }
    }
    let mut unbounded = vec![false; n];
    let mut cycle = None;
    for comp in sccs(edges) {
        if let Err(c) = potentials(edges, &comp, 1) {
            comp.iter().for_each(|&v| unbounded[v] = true);
            cycle.get_or_insert_with(|| c.iter().map(|&s| names[s].clone()).collect::<Vec<_>>());
        }
    }
    // Latency: L(x) = max(0, max over x -> s of w + L(s)); unbounded propagates to readers.
    let mut lat: Vec<Option<i64>> = (0..n)
        .map(|v| if unbounded[v] { None } else { Some(0) })
        .collect();
    for _ in 0..=n {
        let mut changed = false;
        for u in 0..n {
            let Some(mut best) = lat[u] else { continue };
            let mut unb = false;
            for &(v, w) in &edges[u] {
                match lat[v] {
                    None => unb = true,
                    Some(l) => best = best.max(w + l),
                }
            }
            let new = if unb { None } else { Some(best.max(0)) };
            if new != lat[u] {
                lat[u] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let rep = (0..n)
        .map(|v| StreamReport {
            latency: lat[v].map(|l| l as u64),
            keep_past: keep_past[v],
        })
        .collect();
    (rep, cycle)
}

/// Output indices ordered so that every weight-0 read is computed before its reader.
pub(crate) fn zero_weight_order(edges: &[Vec<(Sid, i64)>], n_in: usize) -> Vec<usize> {
    let n = edges.len();
    let mut order = Vec::new();
    let mut state = vec![0u8; n];
    fn visit(v: Sid, edges: &[Vec<(Sid, i64)>], state: &mut [u8], order: &mut Vec<Sid>) {
        if state[v] != 0 {
            return;
        }
        state[v] = 1;
        for &(w, weight) in &edges[v] {
            if weight == 0 {
                visit(w, edges, state, order);
            }
        }
        state[v] = 2;
        order.push(v);
    }
    for v in n_in..n {
        visit(v, edges, &mut state, &mut order);
    }
    order
        .into_iter()
        .filter(|&v| v >= n_in)
        .map(|v| v - n_in)
        .collect()
}
