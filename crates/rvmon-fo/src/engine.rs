//! Evaluation of a [`Plan`]: every node turns its operands' relation streams into its own, in
//! time-point order. Past operators decide a time point at once; `NEXT` when the next time point
//! arrives; `UNTIL` when its window has passed (MonPoly's timing — the eager per-tuple version
//! of the propositional engine is future work).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use rvmon_core::{Error, Interner, TimePoint, Timestamp, Value};
use rvmon_logic::eval::eval_term;
use rvmon_logic::reference::compare;
use rvmon_logic::AggOp;

use crate::compile::{ArgPat, NodeKind, Plan};
use crate::rel::{project, unit, Rel, Tuple};

#[derive(Default, Debug)]
struct Stream {
    head: u64,
    vals: VecDeque<Rel>,
}

impl Stream {
    fn get(&self, pos: u64) -> Option<&Rel> {
        if pos < self.head {
            return None;
        }
        self.vals.get((pos - self.head) as usize)
    }

    fn end(&self) -> u64 {
        self.head + self.vals.len() as u64
    }

    fn drop_before(&mut self, pos: u64) {
        while self.head < pos && !self.vals.is_empty() {
            self.vals.pop_front();
            self.head += 1;
        }
    }
}

#[derive(Default, Debug)]
struct SinceState {
    /// Right-operand tuples not yet old enough for the lower bound, with their timestamp.
    young: VecDeque<(Timestamp, Rel)>,
    /// Tuples old enough, with the newest timestamp at which they were witnessed.
    ripe: FxHashMap<Tuple, Timestamp>,
}

#[derive(Default, Debug)]
struct UntilState {
    next: u64,
}

/// Positions fed so far with their time-point index and timestamp.
#[derive(Default, Debug)]
struct Timeline {
    head: u64,
    points: VecDeque<(u64, Timestamp)>,
}

impl Timeline {
    fn ts(&self, pos: u64) -> Timestamp {
        self.points[(pos - self.head) as usize].1
    }

    fn end(&self) -> u64 {
        self.head + self.points.len() as u64
    }
}

/// A decided result: the satisfying tuples of the root at a time point.
#[derive(Debug)]
pub struct Answer {
    pub tp: u64,
    pub ts: Timestamp,
    pub rel: Rel,
}

/// Timestamp of MonPoly's closing time point.
pub const CLOSING_TS: Timestamp = rvmon_mtl::CLOSING_TS;

pub struct FoEngine {
    plan: Plan,
    streams: Vec<Stream>,
    cursors: Vec<u64>,
    since: Vec<SinceState>,
    until: Vec<UntilState>,
    timeline: Timeline,
    emitted: u64,
    at_end: bool,
    warnings: Vec<String>,
}

impl FoEngine {
    pub fn new(plan: Plan) -> FoEngine {
        let n = plan.nodes.len();
        FoEngine {
            plan,
            streams: (0..n).map(|_| Stream::default()).collect(),
            cursors: vec![0; n],
            since: (0..n).map(|_| SinceState::default()).collect(),
            until: (0..n).map(|_| UntilState::default()).collect(),
            timeline: Timeline::default(),
            emitted: 0,
            at_end: false,
            warnings: Vec::new(),
        }
    }

    /// Warnings produced so far (taken): MonPoly's notes on conventions it applied.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Feeds a time point; appends decided answers in order.
    pub fn step(
        &mut self,
        tp: &TimePoint,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        let pos = self.timeline.end();
        self.timeline.points.push_back((tp.index, tp.ts));
        for i in 0..self.plan.nodes.len() {
            self.update(i, pos, Some(tp), interner)?;
        }
        self.drain(out);
        self.trim();
        Ok(())
    }

    /// Ends the trace with MonPoly's closing time point (maximal timestamp, no events).
    pub fn close(&mut self, interner: &mut Interner, out: &mut Vec<Answer>) -> Result<(), Error> {
        let index = self.timeline.points.back().map_or(0, |p| p.0 + 1);
        let closing = TimePoint {
            index,
            ts: CLOSING_TS,
            ..Default::default()
        };
        self.step(&closing, interner, out)?;
        self.at_end = true;
        let pos = self.timeline.end() - 1;
        for i in 0..self.plan.nodes.len() {
            self.update(i, pos, None, interner)?;
        }
        self.drain(out);
        Ok(())
    }

    fn drain(&mut self, out: &mut Vec<Answer>) {
        let root = self.plan.root();
        while let Some(rel) = self.streams[root].get(self.emitted) {
            let (tp, ts) = self.timeline.points[(self.emitted - self.timeline.head) as usize];
            if ts != CLOSING_TS {
                out.push(Answer {
                    tp,
                    ts,
                    rel: rel.clone(),
                });
            }
            self.emitted += 1;
        }
        self.streams[root].drop_before(self.emitted);
    }

    fn trim(&mut self) {
        let mut min = self.emitted;
        for (i, n) in self.plan.nodes.iter().enumerate() {
            let need = match n.kind {
                NodeKind::Prev { .. } => self.cursors[i].saturating_sub(1),
                NodeKind::Next { .. } | NodeKind::Since { .. } => self.cursors[i],
                NodeKind::Until { .. } => self.until[i].next,
                _ => continue,
            };
            min = min.min(need);
        }
        while self.timeline.head < min && !self.timeline.points.is_empty() {
            self.timeline.points.pop_front();
            self.timeline.head += 1;
        }
    }

    fn update(
        &mut self,
        i: usize,
        pos: u64,
        tp: Option<&TimePoint>,
        interner: &mut Interner,
    ) -> Result<(), Error> {
        let (children, rest) = self.streams.split_at_mut(i);
        let out = &mut rest[0];
        let tl = &self.timeline;
        let node = &self.plan.nodes[i];
        let warnings = &mut self.warnings;
        let eval_err =
            |e: rvmon_logic::eval::EvalError| Error::msg(format!("evaluation failed: {e}"));
        match &node.kind {
            NodeKind::Pred { sym, arity, args } => {
                if out.end() <= pos {
                    let mut rel = Rel::default();
                    if let Some(tp) = tp {
                        'events: for e in tp
                            .events
                            .iter()
                            .filter(|e| e.name == *sym && e.args_len as usize == *arity)
                        {
                            let vals = tp.args_of(e);
                            let mut t = vec![Value::Int(0); node.vars.len()];
                            for (v, pat) in vals.iter().zip(args) {
                                match pat {
                                    ArgPat::Const(c) if c != v => continue 'events,
                                    ArgPat::Same(c) if t[*c] != *v => continue 'events,
                                    ArgPat::Bind(c) => t[*c] = *v,
                                    _ => {}
                                }
                            }
                            rel.insert(t.into_boxed_slice());
                        }
                    }
                    out.vals.push_back(rel);
                }
            }
            NodeKind::Const(rel) => {
                if out.end() <= pos {
                    out.vals.push_back(rel.clone());
                }
            }
            NodeKind::Not(c) => {
                while let Some(r) = children[*c].get(out.end()) {
                    let v = if r.is_empty() { unit() } else { Rel::default() };
                    out.vals.push_back(v);
                }
                children[*c].drop_before(out.end());
            }
            NodeKind::Join {
                l,
                r,
                shared,
                r_new,
            } => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    out.vals.push_back(join(a, b, shared, r_new));
                }
                let e = out.end();
                children[*l].drop_before(e);
                children[*r].drop_before(e);
            }
            NodeKind::AntiJoin { l, r, key } => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    let v = a
                        .iter()
                        .filter(|t| !b.contains(&project(t, key)))
                        .cloned()
                        .collect();
                    out.vals.push_back(v);
                }
                let e = out.end();
                children[*l].drop_before(e);
                children[*r].drop_before(e);
            }
            NodeKind::Filter {
                l,
                op,
                lhs,
                rhs,
                negated,
            } => {
                while let Some(a) = children[*l].get(out.end()) {
                    let mut v = Rel::default();
                    for t in a {
                        let env = |x: &str| node.vars.iter().position(|y| y == x).map(|c| t[c]);
                        let lv = eval_term(lhs, &env, interner).map_err(eval_err)?;
                        let rv = eval_term(rhs, &env, interner).map_err(eval_err)?;
                        let holds = compare(*op, &lv, &rv, interner).ok_or_else(|| {
                            Error::msg("type error: comparison of values of different types")
                        })?;
                        if holds != *negated {
                            v.insert(t.clone());
                        }
                    }
                    out.vals.push_back(v);
                }
                let e = out.end();
                children[*l].drop_before(e);
            }
            NodeKind::Assign { l, term } => {
                let lvars = &self.plan.nodes[*l].vars;
                while let Some(a) = children[*l].get(out.end()) {
                    let mut v = Rel::default();
                    for t in a {
                        let env = |x: &str| lvars.iter().position(|y| y == x).map(|c| t[c]);
                        let x = eval_term(term, &env, interner).map_err(eval_err)?;
                        let mut nt = t.to_vec();
                        nt.push(x);
                        v.insert(nt.into_boxed_slice());
                    }
                    out.vals.push_back(v);
                }
                let e = out.end();
                children[*l].drop_before(e);
            }
            NodeKind::Union { l, r, r_order } => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    let mut v = a.clone();
                    v.extend(b.iter().map(|t| project(t, r_order)));
                    out.vals.push_back(v);
                }
                let e = out.end();
                children[*l].drop_before(e);
                children[*r].drop_before(e);
            }
            NodeKind::Project { c, keep } => {
                while let Some(a) = children[*c].get(out.end()) {
                    out.vals
                        .push_back(a.iter().map(|t| project(t, keep)).collect());
                }
                let e = out.end();
                children[*c].drop_before(e);
            }
            NodeKind::Agg {
                c,
                op,
                over,
                group,
                default,
            } => {
                while let Some(a) = children[*c].get(out.end()) {
                    if a.is_empty() && group.is_empty() && !matches!(op, AggOp::Cnt | AggOp::Sum) {
                        // MonPoly's convention, and its warning.
                        warnings.push(format!(
                            "WARNING: {} applied on empty relation! Resulting value is {}, by (our) convention.",
                            op.keyword(),
                            crate::rel::value_text(default, interner)
                        ));
                    }
                    out.vals
                        .push_back(aggregate(a, *op, *over, group, *default, interner)?);
                }
                let e = out.end();
                children[*c].drop_before(e);
            }
            NodeKind::Prev { w, c } => {
                let next = &mut self.cursors[i];
                while *next <= pos {
                    let v = if *next == 0 {
                        Rel::default()
                    } else {
                        match children[*c].get(*next - 1) {
                            Some(r) if w.contains(tl.ts(*next) - tl.ts(*next - 1)) => r.clone(),
                            Some(_) => Rel::default(),
                            None => break,
                        }
                    };
                    out.vals.push_back(v);
                    *next += 1;
                }
                children[*c].drop_before(next.saturating_sub(1));
            }
            NodeKind::Next { w, c } => {
                let next = &mut self.cursors[i];
                while *next < pos || (self.at_end && *next == pos) {
                    let v = if *next == pos {
                        Rel::default()
                    } else {
                        match children[*c].get(*next + 1) {
                            Some(r) if w.contains(tl.ts(*next + 1) - tl.ts(*next)) => r.clone(),
                            Some(_) => Rel::default(),
                            None => break,
                        }
                    };
                    out.vals.push_back(v);
                    *next += 1;
                }
                children[*c].drop_before(*next + 1);
            }
            NodeKind::Since {
                w,
                l,
                r,
                negated,
                l_key,
            } => {
                let next = &mut self.cursors[i];
                let st = &mut self.since[i];
                while let (Some(a), Some(b)) = (children[*l].get(*next), children[*r].get(*next)) {
                    let t = tl.ts(*next);
                    // Tuples whose left condition fails now lose their earlier witnesses.
                    let survives = |tuple: &Tuple| a.contains(&project(tuple, l_key)) != *negated;
                    let trivial = !*negated && l_key.is_empty() && !a.is_empty();
                    if !trivial {
                        st.ripe.retain(|tuple, _| survives(tuple));
                        for (_, rel) in st.young.iter_mut() {
                            rel.retain(|tuple| survives(tuple));
                        }
                    }
                    st.young.push_back((t, b.clone()));
                    // Move witnesses that reached the lower bound; keep their newest timestamp.
                    while st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo) {
                        let (tj, rel) = st.young.pop_front().expect("checked");
                        for tuple in rel {
                            let e = st.ripe.entry(tuple).or_insert(tj);
                            *e = (*e).max(tj);
                        }
                    }
                    if let Some(hi) = w.hi {
                        st.ripe.retain(|_, tj| t - *tj <= hi);
                    }
                    out.vals.push_back(st.ripe.keys().cloned().collect());
                    *next += 1;
                }
                let e = *next;
                children[*l].drop_before(e);
                children[*r].drop_before(e);
            }
            NodeKind::Until {
                w,
                l,
                r,
                negated,
                l_key,
            } => {
                let Some(hi) = w.hi else {
                    return Err(Error::msg(
                        "unbounded UNTIL/EVENTUALLY over data is not supported yet",
                    ));
                };
                let st = &mut self.until[i];
                loop {
                    let n = st.next;
                    if n > pos {
                        break;
                    }
                    let tn = tl.ts(n);
                    // The first position beyond the window, if it has arrived.
                    let mut q = n;
                    while q <= pos && tl.ts(q) - tn <= hi {
                        q += 1;
                    }
                    if q > pos && !self.at_end {
                        break;
                    }
                    if (n..q)
                        .any(|j| children[*l].get(j).is_none() || children[*r].get(j).is_none())
                    {
                        break;
                    }
                    // Backwards: S_j = R_j (if old enough) ∪ {t ∈ S_{j+1} | left holds for t at j}.
                    let mut acc = Rel::default();
                    for j in (n..q).rev() {
                        let a = children[*l].get(j).expect("checked");
                        acc.retain(|tuple| a.contains(&project(tuple, l_key)) != *negated);
                        if tl.ts(j) - tn >= w.lo {
                            acc.extend(children[*r].get(j).expect("checked").iter().cloned());
                        }
                    }
                    out.vals.push_back(acc);
                    st.next += 1;
                }
                let e = st.next;
                children[*l].drop_before(e);
                children[*r].drop_before(e);
            }
        }
        Ok(())
    }
}

fn join(a: &Rel, b: &Rel, shared: &[(usize, usize)], r_new: &[usize]) -> Rel {
    let mut out = Rel::default();
    if shared.is_empty() {
        for x in a {
            for y in b {
                let mut t = x.to_vec();
                t.extend(r_new.iter().map(|&c| y[c]));
                out.insert(t.into_boxed_slice());
            }
        }
        return out;
    }
    // Hash join on the shared columns, building on the right operand.
    let mut index: FxHashMap<Tuple, Vec<&Tuple>> = FxHashMap::default();
    let r_cols: Vec<usize> = shared.iter().map(|p| p.1).collect();
    let l_cols: Vec<usize> = shared.iter().map(|p| p.0).collect();
    for y in b {
        index.entry(project(y, &r_cols)).or_default().push(y);
    }
    for x in a {
        if let Some(ys) = index.get(&project(x, &l_cols)) {
            for y in ys {
                let mut t = x.to_vec();
                t.extend(r_new.iter().map(|&c| y[c]));
                out.insert(t.into_boxed_slice());
            }
        }
    }
    out
}

fn aggregate(
    rel: &Rel,
    op: AggOp,
    over: usize,
    group: &[usize],
    default: Value,
    interner: &Interner,
) -> Result<Rel, Error> {
    let mut out = Rel::default();
    if rel.is_empty() {
        if group.is_empty() {
            out.insert(Box::new([default]) as Tuple);
        }
        return Ok(out);
    }
    let mut groups: FxHashMap<Tuple, Vec<Value>> = FxHashMap::default();
    for t in rel {
        groups.entry(project(t, group)).or_default().push(t[over]);
    }
    let num = |v: &Value| match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    };
    for (g, mut vals) in groups {
        let result = match op {
            AggOp::Cnt => Value::Int(vals.len() as i64),
            AggOp::Min => *vals
                .iter()
                .min_by(|a, b| a.cmp_in(b, interner))
                .expect("non-empty"),
            AggOp::Max => *vals
                .iter()
                .max_by(|a, b| a.cmp_in(b, interner))
                .expect("non-empty"),
            AggOp::Sum => match vals[0] {
                Value::Int(_) => Value::Int(
                    vals.iter()
                        .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                        .sum(),
                ),
                _ => Value::Float(vals.iter().map(num).sum()),
            },
            AggOp::Avg => Value::Float(vals.iter().map(num).sum::<f64>() / vals.len() as f64),
            AggOp::Med => {
                vals.sort_by(|a, b| a.cmp_in(b, interner));
                let n = vals.len();
                let m = if n % 2 == 0 { n / 2 - 1 } else { n / 2 };
                let (x, y) = if n % 2 == 0 {
                    (vals[m], vals[m + 1])
                } else {
                    (vals[m], vals[m])
                };
                Value::Float((num(&x) + num(&y)) / 2.0)
            }
        };
        let mut t = vec![result];
        t.extend(g.iter().copied());
        out.insert(t.into_boxed_slice());
    }
    Ok(out)
}
