//! From a normalised first-order formula to a plan: a post-order list of relational operators,
//! each with its column layout (the variables its tuples assign, in order).
//!
//! The plan follows MonPoly's monitorable fragment: `ψ AND NOT φ` is an anti-join, `ψ AND t1 op
//! t2` a filter (or an assignment `x = t`), `NOT` applies to closed formulas only, `OR` unites
//! formulas with the same variables, `φ SINCE/UNTIL ψ` needs `fv(φ) ⊆ fv(ψ)` (with `NOT φ`
//! allowed on the left). Formulas outside it are rejected with the subformula and the reason.

use std::collections::HashMap;

use rvmon_core::sig::{Signature, Type};
use rvmon_core::{Error, Interner, Sym, Value};
use rvmon_logic::eval::Arithmetic;
use rvmon_logic::monitorable;
use rvmon_logic::ops::{Op, Window};
use rvmon_logic::{
    free_vars, AggOp, BinaryTemporal, BoolOp, CmpOp, Formula, FormulaKind, Quant, StrOp, Term,
    UnaryTemporal,
};

/// How one argument of a predicate atom matches an event's value.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgPat {
    /// Must equal this constant.
    Const(Value),
    /// Binds output column `c`.
    Bind(usize),
    /// Must equal output column `c` (a repeated variable).
    Same(usize),
}

/// A condition on the tuples of a temporal operator's right operand, for a left operand that
/// is not monitorable on its own but whose variables the right operand binds (e.g.
/// `NOT (access(t,x) AND NOT holds(t,l)) SINCE …(t,x,l)`): each stored tuple is tested against
/// the leaves' relations instead of materialising the left operand. This goes beyond MonPoly's
/// fragment, which requires the left operand to be monitorable by itself.
#[derive(Clone, Debug)]
pub enum Guard {
    Const(bool),
    /// Holds when the tuple projected onto `key` is in the relation of `node`.
    Rel {
        node: usize,
        key: Vec<usize>,
    },
    Not(Box<Guard>),
    And(Box<Guard>, Box<Guard>),
    Or(Box<Guard>, Box<Guard>),
}

/// Where a guard can fail: it holds for every tuple whose projection onto `key` is in none of
/// the `leaves`' relations at that position. A temporal operator then tests only the stored
/// tuples that such a leaf tuple names (found through an index on `key`), not its whole state
/// at every time point (PERF: the lockset of DejaVu's data-race property,
/// `NOT (access(t,x) AND NOT held(t,l)) SINCE …`, can fail only for the current access).
#[derive(Clone, Debug, PartialEq)]
pub struct GuardTrigger {
    pub key: Vec<usize>,
    pub leaves: Vec<usize>,
}

impl Guard {
    /// See [`GuardTrigger`]; `None` when the guard may fail for tuples no leaf names (a
    /// positive leaf, `x` in `NOT … SINCE`, fails for every tuple it does not hold), or when
    /// the leaves project the tuple onto different columns.
    pub fn trigger(&self) -> Option<GuardTrigger> {
        let exceptions = self.exceptions(true)?;
        let key = exceptions.first().map(|e| e.1.clone()).unwrap_or_default();
        if exceptions.iter().any(|e| e.1 != key) {
            return None;
        }
        let mut leaves: Vec<usize> = exceptions.into_iter().map(|e| e.0).collect();
        leaves.sort_unstable();
        leaves.dedup();
        Some(GuardTrigger { key, leaves })
    }

    /// Leaves (node, key) such that the guard evaluates to `value` on every tuple whose key is
    /// in none of their relations; `None` if there are none such.
    fn exceptions(&self, value: bool) -> Option<Vec<(usize, Vec<usize>)>> {
        let either = |a: Option<Vec<_>>, b: Option<Vec<_>>| match (a, b) {
            (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
            (a, b) => a.or(b),
        };
        let both = |a: Option<Vec<_>>, b: Option<Vec<_>>| {
            let mut a = a?;
            a.extend(b?);
            Some(a)
        };
        match self {
            Guard::Const(b) => (*b == value).then(Vec::new),
            // Outside the relation a leaf is false.
            Guard::Rel { node, key } => (!value).then(|| vec![(*node, key.clone())]),
            Guard::Not(g) => g.exceptions(!value),
            Guard::And(a, b) if value => both(a.exceptions(true), b.exceptions(true)),
            Guard::And(a, b) => either(a.exceptions(false), b.exceptions(false)),
            Guard::Or(a, b) if value => either(a.exceptions(true), b.exceptions(true)),
            Guard::Or(a, b) => both(a.exceptions(false), b.exceptions(false)),
        }
    }

    /// Renames the plan nodes it reads.
    fn map_nodes(&mut self, f: &mut impl FnMut(usize) -> usize) {
        match self {
            Guard::Const(_) => {}
            Guard::Rel { node, .. } => *node = f(*node),
            Guard::Not(g) => g.map_nodes(f),
            Guard::And(a, b) | Guard::Or(a, b) => {
                a.map_nodes(f);
                b.map_nodes(f);
            }
        }
    }

    /// The plan nodes it reads.
    pub fn leaves(&self, out: &mut Vec<usize>) {
        match self {
            Guard::Const(_) => {}
            Guard::Rel { node, .. } => out.push(*node),
            Guard::Not(g) => g.leaves(out),
            Guard::And(a, b) | Guard::Or(a, b) => {
                a.leaves(out);
                b.leaves(out);
            }
        }
    }
}

/// What `MATCHES` does with one group of the regular expression.
#[derive(Clone, Debug)]
pub enum GroupOp {
    /// `_`: nothing (the group need not take part).
    Skip,
    /// A new variable: the group's text becomes a new column.
    Bind,
    /// Must equal the value of this column of the left operand.
    SameCol(usize),
    /// Must equal an earlier group (`(y, y)`).
    SameGroup(usize),
    /// Must equal this term's value.
    SameTerm(Term),
}

#[derive(Clone, Debug)]
pub enum NodeKind {
    /// Tuples of events named `sym` with `arity` values, matched by `args`.
    Pred {
        sym: Sym,
        arity: usize,
        args: Vec<ArgPat>,
    },
    /// A fixed relation (ground comparisons, `x = c`).
    Const(crate::rel::Rel),
    /// `NOT φ` for a closed `φ`.
    Not(usize),
    /// Natural join; `r_cols[k]` is the column of the right operand's variable that is new,
    /// `shared` pairs (left column, right column).
    Join {
        l: usize,
        r: usize,
        shared: Vec<(usize, usize)>,
        r_new: Vec<usize>,
    },
    /// `l AND NOT r`: keep the left tuples whose projection `r_key` is not in `r`.
    AntiJoin {
        l: usize,
        r: usize,
        key: Vec<usize>,
    },
    /// `l AND (NOT) t1 op t2`, all variables bound by `l`.
    Filter {
        l: usize,
        op: CmpOp,
        lhs: Term,
        rhs: Term,
        negated: bool,
        /// `lhs` and `rhs` resolved, when both are a variable or a constant (most
        /// comparisons: `1000 < t`, `x = "admin"`, `x != y`).
        resolved: Option<[Operand; 2]>,
    },
    /// `l AND (NOT) t1 SUBSTRING t2` / `l AND (NOT) t1 MATCHES r"…" (groups)`; `regex` for
    /// `MATCHES`. Groups that bind new variables extend the left tuples.
    StrRel {
        l: usize,
        lhs: Term,
        rhs: Term,
        regex: Option<Box<regex::Regex>>,
        groups: Vec<GroupOp>,
        negated: bool,
    },
    /// `l AND x = t`: extends the left tuples with `x`'s value.
    Assign {
        l: usize,
        term: Term,
    },
    /// Union; `r_order[k]` is the right operand's column for output column `k`.
    Union {
        l: usize,
        r: usize,
        r_order: Vec<usize>,
    },
    /// Projection onto `keep` (EXISTS).
    Project {
        c: usize,
        keep: Vec<usize>,
    },
    /// `EXISTS ys. (l AND r AND s)` where `r` binds `ys` (the variables new to `l`) and `s`
    /// only tests (its variables are bound by `l` and `r`): the tuples of `l` that some tuple
    /// of `r` extends to one in `s`. The join of `l` and `r` is never built, and the search
    /// for each tuple of `l` stops at the first witness (PERF: the common-lock test of
    /// DejaVu's data-race property, `EXISTS l. (… AND lockset(t1,x,l) AND lockset(t2,x,l))`,
    /// built every (t2, l) pair for each access).
    ExistsJoin {
        l: usize,
        r: usize,
        /// (column of `l`, column of `r`) pairs on which they join.
        shared: Vec<(usize, usize)>,
        /// The columns of `r` new to `l`, in the order they extend `l`'s tuples.
        r_new: Vec<usize>,
        s: usize,
        /// For each column of `s`, its column in `l`'s tuple extended by `r_new`.
        s_key: Vec<usize>,
        /// `l AND NOT EXISTS ys. (r AND s)`: the tuples of `l` that no tuple of `r` extends
        /// to one in `s` (see [`Compiler::not_exists_join`]).
        negated: bool,
        /// When set, the left tuples are not a relation of their own but the join of `l` with
        /// another node, made pair by pair and tested before any is kept (see
        /// [`fuse_joins_into_exists_joins`]).
        over: Option<JoinOver>,
    },
    Prev {
        w: Window,
        c: usize,
    },
    Next {
        w: Window,
        c: usize,
    },
    /// `l SINCE r` / `NOT l SINCE r`; `l_key`: the columns of `r` that form `l`'s tuples.
    Since {
        w: Window,
        l: usize,
        r: usize,
        negated: bool,
        l_key: Vec<usize>,
        /// When present, replaces `l`/`negated`/`l_key` as the left operand.
        guard: Option<Guard>,
        /// `PREVIOUS[lag] (this SINCE)`, fused: the output at a position is the state before
        /// that position's update, which is then applied in place at the next step (no copy
        /// of the state is ever needed for `PREVIOUS ONCE …`, `PREVIOUS (… SINCE …)`).
        lag: Option<Window>,
    },
    Until {
        w: Window,
        l: usize,
        r: usize,
        negated: bool,
        l_key: Vec<usize>,
        guard: Option<Guard>,
    },
    /// Aggregation: group by `group` columns of the child, aggregate column `over`.
    /// `default`: the result for an empty body without group variables (MonPoly's).
    Agg {
        c: usize,
        op: AggOp,
        over: usize,
        group: Vec<usize>,
        default: Value,
    },
}

/// The join that an [`NodeKind::ExistsJoin`] makes its left tuples from: its `l` joined with
/// `r`, as [`NodeKind::Join`] would (the joined tuple is `l`'s, then `r`'s columns `r_new`).
/// A comparison operand resolved when compiling: a column of the filtered tuple, or a
/// constant with its string already interned. PERF: a term looked each variable up by name
/// and interned each string constant again for every tuple it was evaluated on.
#[derive(Clone, Copy, Debug)]
pub enum Operand {
    Col(usize),
    Const(Value),
}

impl Operand {
    #[inline]
    pub fn value(&self, t: &[Value]) -> Value {
        match *self {
            Operand::Col(c) => t[c],
            Operand::Const(v) => v,
        }
    }
}

#[derive(Clone, Debug)]
pub struct JoinOver {
    pub r: usize,
    pub shared: Vec<(usize, usize)>,
    pub r_new: Vec<usize>,
}

impl NodeKind {
    /// The operands, as the plan shows them.
    pub fn operands(&self) -> Vec<usize> {
        match self {
            NodeKind::Pred { .. } | NodeKind::Const(_) => vec![],
            NodeKind::Join { l, r, .. }
            | NodeKind::AntiJoin { l, r, .. }
            | NodeKind::Union { l, r, .. }
            | NodeKind::Since { l, r, .. }
            | NodeKind::Until { l, r, .. } => vec![*l, *r],
            NodeKind::ExistsJoin { l, r, s, over, .. } => match over {
                Some(j) => vec![*l, j.r, *r, *s],
                None => vec![*l, *r, *s],
            },
            NodeKind::Filter { l, .. }
            | NodeKind::StrRel { l, .. }
            | NodeKind::Assign { l, .. } => {
                vec![*l]
            }
            NodeKind::Not(c)
            | NodeKind::Project { c, .. }
            | NodeKind::Agg { c, .. }
            | NodeKind::Prev { c, .. }
            | NodeKind::Next { c, .. } => vec![*c],
        }
    }

    /// Renames the nodes it reads (operands and guard leaves).
    fn map_nodes(&mut self, f: &mut impl FnMut(usize) -> usize) {
        match self {
            NodeKind::Pred { .. } | NodeKind::Const(_) => {}
            NodeKind::Join { l, r, .. }
            | NodeKind::AntiJoin { l, r, .. }
            | NodeKind::Union { l, r, .. } => {
                *l = f(*l);
                *r = f(*r);
            }
            NodeKind::Since { l, r, guard, .. } | NodeKind::Until { l, r, guard, .. } => {
                *l = f(*l);
                *r = f(*r);
                if let Some(g) = guard {
                    g.map_nodes(f);
                }
            }
            NodeKind::ExistsJoin { l, r, s, over, .. } => {
                *l = f(*l);
                if let Some(j) = over {
                    j.r = f(j.r);
                }
                *r = f(*r);
                *s = f(*s);
            }
            NodeKind::Filter { l, .. }
            | NodeKind::StrRel { l, .. }
            | NodeKind::Assign { l, .. } => *l = f(*l),
            NodeKind::Not(c)
            | NodeKind::Project { c, .. }
            | NodeKind::Agg { c, .. }
            | NodeKind::Prev { c, .. }
            | NodeKind::Next { c, .. } => *c = f(*c),
        }
    }

    /// Every node whose relations it reads: its operands and its guard's leaves.
    pub fn reads(&self) -> Vec<usize> {
        let mut out = self.operands();
        if let NodeKind::Since { guard: Some(g), .. } | NodeKind::Until { guard: Some(g), .. } =
            self
        {
            g.leaves(&mut out);
        }
        out
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// The names of its columns, as the formula where it was compiled names them. A node
    /// shared up to renaming (see [`share_up_to_renaming`]) keeps its first occurrence's
    /// names, which its other readers do not use.
    pub vars: Vec<String>,
    /// Whether some reader knows its columns by other names (see [`share_up_to_renaming`]):
    /// then nothing may match its columns, or those of the nodes below it, to a reader's
    /// by name.
    pub renamed: bool,
}

/// A compiled first-order formula.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub nodes: Vec<Node>,
    /// For MonPoly's output order: root column of each free variable of the input formula.
    pub output_order: Vec<usize>,
    /// The shape of the formula as propositional operators, for [`rvmon_mtl::MonpolyTiming`]:
    /// one operator per node as compiled, before common subplans were shared (its indices are
    /// its own, not node numbers).
    pub shape: Vec<Op>,
    /// Conventions for division by zero and out-of-range conversions (`-verified` picks
    /// VeriMon's).
    pub arithmetic: Arithmetic,
}

impl Plan {
    pub fn root(&self) -> usize {
        self.nodes.len() - 1
    }

    /// Whether evaluating the plan can fail at run time (arithmetic, type errors in
    /// comparisons, string functions, aggregations): operators that evaluate terms.
    pub fn may_fail(&self) -> bool {
        self.nodes.iter().any(|n| {
            matches!(
                n.kind,
                NodeKind::Filter { .. }
                    | NodeKind::StrRel { .. }
                    | NodeKind::Assign { .. }
                    | NodeKind::Agg { .. }
            )
        })
    }

    /// The plan as an indented operator tree, root first (for `rvmon check --explain`), with
    /// scans named by their predicate. A node that several operators read (a common subplan,
    /// see [`share_subplans`]) is numbered where it first appears, with its subtree, and
    /// referred to by number where it appears again: the tree then shows how much work is
    /// shared, and the names of a node shared up to renaming are its first occurrence's.
    pub fn describe(&self, interner: &Interner) -> String {
        struct Walk<'p> {
            plan: &'p Plan,
            interner: &'p Interner,
            /// How many operators read each node.
            readers: Vec<usize>,
            /// The number given to each shared node where it was first shown.
            shown: Vec<Option<usize>>,
            next_number: usize,
            out: String,
        }
        let mut readers = vec![0; self.nodes.len()];
        for n in &self.nodes {
            for k in n.kind.operands() {
                readers[k] += 1;
            }
        }
        let mut walk = Walk {
            plan: self,
            interner,
            readers,
            shown: vec![None; self.nodes.len()],
            next_number: 1,
            out: String::new(),
        };
        fn go(walk: &mut Walk, i: usize, depth: usize) {
            let plan = walk.plan;
            let n = &plan.nodes[i];
            let w = |w: &Window| match w.hi {
                Some(h) => format!("[{},{}]", w.lo, h),
                None => format!("[{},*)", w.lo),
            };
            let label = match &n.kind {
                NodeKind::Pred { sym, args, .. } => {
                    format!("scan {} ({} args)", walk.interner.resolve(*sym), args.len())
                }
                NodeKind::Const(rel) => format!("constant ({} tuples)", rel.len()),
                NodeKind::Not(_) => "not (closed)".into(),
                NodeKind::Join { shared, .. } => format!("join on {} columns", shared.len()),
                NodeKind::AntiJoin { .. } => "anti-join (AND NOT)".into(),
                NodeKind::Filter { negated, .. } => {
                    format!("filter{}", if *negated { " (negated)" } else { "" })
                }
                NodeKind::StrRel { regex, .. } => if regex.is_some() {
                    "matches"
                } else {
                    "substring"
                }
                .to_string(),
                NodeKind::Assign { .. } => "assign".into(),
                NodeKind::Union { .. } => "union".into(),
                NodeKind::Project { .. } => "project (EXISTS)".into(),
                NodeKind::ExistsJoin {
                    over: Some(j),
                    shared,
                    negated,
                    ..
                } => {
                    format!(
                        "{}exists-join on {} columns, then test, of the join on {} columns of its first two operands (each pair tested before it is kept)",
                        if *negated { "anti-" } else { "" },
                        shared.len(),
                        j.shared.len()
                    )
                }
                NodeKind::ExistsJoin {
                    shared,
                    negated: false,
                    ..
                } => {
                    format!("exists-join on {} columns, then test", shared.len())
                }
                NodeKind::ExistsJoin {
                    shared,
                    negated: true,
                    ..
                } => {
                    format!(
                        "anti-exists-join (AND NOT EXISTS) on {} columns, then test",
                        shared.len()
                    )
                }
                NodeKind::Agg { op, .. } => format!("aggregate {}", op.keyword()),
                NodeKind::Prev { w: win, .. } => format!("previous{}", w(win)),
                NodeKind::Next { w: win, .. } => format!("next{}", w(win)),
                NodeKind::Since {
                    w: win, guard, lag, ..
                } => {
                    let mut label = format!("since{}", w(win));
                    if guard.is_some() {
                        label.push_str(" (left operand as a guard)");
                    }
                    if lag.is_some() {
                        label.push_str(" (with PREVIOUS fused)");
                    }
                    label
                }
                NodeKind::Until { w: win, .. } => format!("until{}", w(win)),
            };
            let indent = "  ".repeat(depth);
            let vars = n.vars.join(",");
            if let Some(number) = walk.shown[i] {
                walk.out.push_str(&format!(
                    "{indent}#{number} again ({label}, shared) -> ({vars})\n"
                ));
                return;
            }
            // (A constant is shown wherever it is read: sharing it saves nothing worth showing.)
            let number = if walk.readers[i] > 1 && !matches!(n.kind, NodeKind::Const(_)) {
                let number = walk.next_number;
                walk.next_number += 1;
                walk.shown[i] = Some(number);
                format!("#{number} ")
            } else {
                String::new()
            };
            walk.out
                .push_str(&format!("{indent}{number}{label} -> ({vars})\n"));
            for k in n.kind.operands() {
                go(walk, k, depth + 1);
            }
        }
        go(&mut walk, self.root(), 1);
        walk.out
    }

    pub fn has_future(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Next { .. } | NodeKind::Until { .. }))
    }
}

/// Types of variables, inferred from the predicates that bind them.
type Types = HashMap<String, Type>;

struct Compiler<'a> {
    arithmetic: Arithmetic,
    nodes: Vec<Node>,
    shape: Vec<Op>,
    sig: &'a Signature,
    interner: &'a mut Interner,
    file: &'a str,
    text: &'a str,
    types: Types,
}

fn col(vars: &[String], v: &str) -> usize {
    vars.iter()
        .position(|x| x == v)
        .expect("variable in layout")
}

impl Compiler<'_> {
    fn err(&self, f: &Formula, msg: impl Into<String>) -> Error {
        Error::at_offset(self.file, self.text, f.span.start, msg)
    }

    /// A future operator's window must end: otherwise a time point's verdict could wait for
    /// the end of the trace (MonPoly refuses such formulas too). Said where the operator is,
    /// before any event is read.
    fn bounded_future(&self, f: &Formula, w: &Window) -> Result<(), Error> {
        match w.hi {
            Some(_) => Ok(()),
            None => Err(self.err(
                f,
                "a future operator (EVENTUALLY, UNTIL) needs a bounded interval here, such as \
                 EVENTUALLY[0,10]: with [a,*) a time point's verdict could wait for the end of \
                 the trace",
            )),
        }
    }

    fn push(&mut self, kind: NodeKind, vars: Vec<String>, shape: Op) -> usize {
        self.nodes.push(Node {
            kind,
            vars,
            renamed: false,
        });
        self.shape.push(shape);
        self.nodes.len() - 1
    }

    /// `t` as an [`Operand`] over the columns `vars`, when it is a variable or a constant.
    fn operand(&mut self, t: &Term, vars: &[String]) -> Option<Operand> {
        Some(match t {
            Term::Var(v) => Operand::Col(col(vars, v)),
            Term::Int(i) => Operand::Const(Value::Int(*i)),
            Term::Float(f) => Operand::Const(Value::Float(*f)),
            Term::Str(s) => Operand::Const(Value::Str(self.interner.intern(s))),
            _ => return None,
        })
    }

    fn constant(&mut self, t: &Term, ty: Option<Type>, f: &Formula) -> Result<Value, Error> {
        let v = rvmon_logic::eval::eval_term_with(self.arithmetic, t, &|_| None, self.interner)
            .map_err(|e| self.err(f, e.to_string()))?;
        match (v, ty) {
            (Value::Int(_), Some(Type::Int))
            | (Value::Float(_), Some(Type::Float))
            | (Value::Str(_), Some(Type::Str | Type::Regexp))
            | (_, None) => Ok(v),
            (_, Some(ty)) => Err(self.err(
                f,
                format!(
                    "type error: a constant of type {} was expected here",
                    ty.name()
                ),
            )),
        }
    }

    fn note_type(&mut self, f: &Formula, var: &str, ty: Type) -> Result<(), Error> {
        match self.types.insert(var.to_string(), ty) {
            Some(old) if old != ty => Err(self.err(
                f,
                format!(
                    "type error: variable `{var}` is used as {} and as {}",
                    old.name(),
                    ty.name()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Collects variable types from every predicate first, so that comparisons can be checked.
    fn infer(&mut self, f: &Formula) -> Result<(), Error> {
        if let FormulaKind::Pred { name, args } = &f.kind {
            if let Some(decl) = self.sig.get(name) {
                if decl.args.len() != args.len() {
                    return Err(self.err(
                        f,
                        format!(
                            "predicate `{name}` has arity {} in the signature, {} here",
                            decl.args.len(),
                            args.len()
                        ),
                    ));
                }
                for (a, (_, ty)) in args.iter().zip(&decl.args) {
                    if let Term::Var(v) = a {
                        self.note_type(f, v, *ty)?;
                    }
                }
            }
        }
        for c in f.children() {
            self.infer(c)?;
        }
        Ok(())
    }

    fn term_type(&self, t: &Term) -> Option<Type> {
        use rvmon_logic::Func::*;
        match t {
            Term::Var(v) => self.types.get(v).copied(),
            Term::Int(_) => Some(Type::Int),
            Term::Float(_) => Some(Type::Float),
            Term::Str(_) => Some(Type::Str),
            Term::Regexp(_) => Some(Type::Regexp),
            Term::Neg(a) | Term::Arith(_, a, _) => self.term_type(a),
            Term::Func(func, _) => Some(match func {
                F2i | S2i | DayOfMonth | Month | Year => Type::Int,
                I2f | S2f => Type::Float,
                I2s | F2s | R2s | FormatDate => Type::Str,
                S2r => Type::Regexp,
            }),
        }
    }

    fn check_cmp_types(&self, f: &Formula, lhs: &Term, rhs: &Term) -> Result<(), Error> {
        match (self.term_type(lhs), self.term_type(rhs)) {
            (Some(a), Some(b)) if a != b => Err(self.err(
                f,
                format!("type error: comparing a {} with a {}", a.name(), b.name()),
            )),
            _ => Ok(()),
        }
    }

    fn compile(&mut self, f: &Formula) -> Result<usize, Error> {
        Ok(match &f.kind {
            FormulaKind::Bool(b) => {
                let rel = if *b {
                    crate::rel::unit()
                } else {
                    Default::default()
                };
                self.push(NodeKind::Const(rel), vec![], Op::Const(*b))
            }
            FormulaKind::Pred { name, args } => self.pred(f, name, args)?,
            FormulaKind::Cmp { op, lhs, rhs } => self.cmp(f, *op, lhs, rhs)?,
            FormulaKind::StrRel {
                op,
                lhs,
                rhs,
                groups,
            } => {
                // Alone, only a ground relation is monitorable: evaluate it on TRUE.
                if !free_vars(f).is_empty() {
                    return Err(self.err(f, monitorable::MSG_LESS));
                }
                let t = self.push(NodeKind::Const(crate::rel::unit()), vec![], Op::Const(true));
                self.str_rel(f, f, t, &[], *op, lhs, rhs, groups, false)?
            }

            FormulaKind::Not(g) => {
                if !free_vars(g).is_empty() {
                    return Err(self.err(f, monitorable::MSG_NOT));
                }
                let c = self.compile(g)?;
                self.push(NodeKind::Not(c), vec![], Op::Not(c))
            }
            FormulaKind::Bool2 {
                op: BoolOp::And,
                lhs,
                rhs,
            } => self.and(f, lhs, rhs)?,
            FormulaKind::Bool2 {
                op: BoolOp::Or,
                lhs,
                rhs,
            } => {
                let l = self.compile(lhs)?;
                let r = self.compile(rhs)?;
                let (lv, rv) = (self.nodes[l].vars.clone(), self.nodes[r].vars.clone());
                if lv.len() != rv.len() || !lv.iter().all(|v| rv.contains(v)) {
                    return Err(self.err(f, monitorable::MSG_OR));
                }
                let r_order = lv.iter().map(|v| col(&rv, v)).collect();
                self.push(NodeKind::Union { l, r, r_order }, lv, Op::Or(l, r))
            }
            FormulaKind::Bool2 { .. } => {
                return Err(self.err(f, "IMPLIES and EQUIV must be normalised away first"))
            }
            FormulaKind::Quant {
                q: Quant::Exists,
                vars,
                body,
            } => self.exists(vars, body)?,
            FormulaKind::Quant {
                q: Quant::Forall, ..
            } => return Err(self.err(f, "FORALL must be normalised away first")),
            FormulaKind::Unary { op, interval, body } => self.unary(f, *op, interval, body)?,
            FormulaKind::Binary {
                op,
                interval,
                lhs,
                rhs,
            } => self.binary(f, *op, interval, lhs, rhs)?,
            FormulaKind::Agg {
                result,
                op,
                over,
                group,
                body,
            } => self.agg(f, result, *op, over, group, body)?,
            FormulaKind::Let { .. } => return Err(self.err(f, "LET must be expanded first")),
        })
    }

    /// A predicate atom: a scan of its events.
    fn pred(&mut self, f: &Formula, name: &str, args: &[Term]) -> Result<usize, Error> {
        let decl = self
            .sig
            .get(name)
            .ok_or_else(|| self.err(f, format!("predicate `{name}` is not in the signature")))?;
        let types: Vec<Type> = decl.args.iter().map(|a| a.1).collect();
        let sym = self.interner.intern(name);
        let mut vars: Vec<String> = Vec::new();
        let mut pats = Vec::new();
        for (a, ty) in args.iter().zip(types) {
            pats.push(match a {
                Term::Var(v) => match vars.iter().position(|x| x == v) {
                    Some(c) => ArgPat::Same(c),
                    None => {
                        vars.push(v.clone());
                        ArgPat::Bind(vars.len() - 1)
                    }
                },
                t => ArgPat::Const(self.constant(t, Some(ty), f)?),
            });
        }
        Ok(self.push(
            NodeKind::Pred {
                sym,
                arity: args.len(),
                args: pats,
            },
            vars,
            Op::Atom(0),
        ))
    }

    /// A comparison alone: only ground comparisons and `x = c` are monitorable.
    fn cmp(&mut self, f: &Formula, op: CmpOp, lhs: &Term, rhs: &Term) -> Result<usize, Error> {
        let fv = free_vars(f);
        self.check_cmp_types(f, lhs, rhs)?;
        // Alone, only ground comparisons and `x = c` are monitorable.
        Ok(match (op, lhs, rhs) {
            (CmpOp::Eq, Term::Var(x), c) | (CmpOp::Eq, c, Term::Var(x))
                if !matches!(c, Term::Var(_)) =>
            {
                let ty = self.types.get(x).copied();
                let v = self.constant(c, ty, f)?;
                let mut rel = crate::rel::Rel::default();
                rel.insert(std::rc::Rc::from([v]) as crate::rel::Tuple);
                self.push(NodeKind::Const(rel), vec![x.clone()], Op::Atom(0))
            }
            _ if fv.is_empty() => {
                let b = rvmon_logic::reference::eval_ground_cmp(op, lhs, rhs)
                    .map_err(|e| self.err(f, e))?;
                let rel = if b {
                    crate::rel::unit()
                } else {
                    Default::default()
                };
                self.push(NodeKind::Const(rel), vec![], Op::Const(b))
            }
            _ => return Err(self.err(f, "this comparison is not monitorable on its own")),
        })
    }

    /// `EXISTS vars. body`: an existential join, or a projection.
    fn exists(&mut self, vars: &[String], body: &Formula) -> Result<usize, Error> {
        if let Some(node) = self.exists_join(vars, body) {
            return Ok(node);
        }
        let c = self.compile(body)?;
        let cv = self.nodes[c].vars.clone();
        let keep: Vec<usize> = (0..cv.len()).filter(|&i| !vars.contains(&cv[i])).collect();
        let out = keep.iter().map(|&i| cv[i].clone()).collect();
        // `EXISTS x. EXISTS y. φ` (as `push_exists` leaves the quantifiers of a closed
        // formula's violations) is one projection of `φ`, not one relation per
        // quantifier. The projection below was just compiled, so nothing else reads it.
        // (PERF: the data race projected its pairs three times at every access.)
        if let (
            true,
            NodeKind::Project {
                c: below,
                keep: inner,
            },
        ) = (c + 1 == self.nodes.len(), &self.nodes[c].kind)
        {
            let below = *below;
            let keep = keep.iter().map(|&i| inner[i]).collect();
            self.nodes.pop();
            self.shape.pop();
            return Ok(self.push(NodeKind::Project { c: below, keep }, out, Op::Not(below)));
        }
        Ok(self.push(NodeKind::Project { c, keep }, out, Op::Not(c)))
    }

    /// `PREVIOUS`, `NEXT`, `ONCE` and `EVENTUALLY`.
    fn unary(
        &mut self,
        f: &Formula,
        op: UnaryTemporal,
        interval: &rvmon_logic::Interval,
        body: &Formula,
    ) -> Result<usize, Error> {
        let w = Window::of(interval);
        Ok(match op {
            UnaryTemporal::Previous | UnaryTemporal::Next => {
                let c = self.compile(body)?;
                let vars = self.nodes[c].vars.clone();
                // PREVIOUS over a past-only SINCE/ONCE is fused into it (see `lag`).
                let past_only = !self.shape[..=c]
                    .iter()
                    .any(|o| matches!(o, Op::Next(..) | Op::Until(..)));
                // So is PREVIOUS over a projection of one (`PREVIOUS EXISTS s. (NOT
                // rel(s,l) SINCE acq(s,l))`, as `push_exists` leaves it), which is the
                // projection of the fused state: PREVIOUS commutes with EXISTS.
                let fused = match self.nodes[c].kind {
                    NodeKind::Project { c: below, .. } => below,
                    _ => c,
                };
                if let (
                    UnaryTemporal::Previous,
                    NodeKind::Since {
                        lag: lag @ None, ..
                    },
                    true,
                ) = (op, &mut self.nodes[fused].kind, past_only)
                {
                    *lag = Some(w);
                    c
                } else if op == UnaryTemporal::Previous {
                    self.push(NodeKind::Prev { w, c }, vars, Op::Prev(w, c))
                } else {
                    self.push(NodeKind::Next { w, c }, vars, Op::Next(w, c))
                }
            }
            UnaryTemporal::Once | UnaryTemporal::Eventually => {
                if op == UnaryTemporal::Eventually {
                    self.bounded_future(f, &w)?;
                }
                let t = self.push(NodeKind::Const(crate::rel::unit()), vec![], Op::Const(true));
                let r = self.compile(body)?;
                let vars = self.nodes[r].vars.clone();
                let since = op == UnaryTemporal::Once;
                let kind = if since {
                    NodeKind::Since {
                        w,
                        l: t,
                        r,
                        negated: false,
                        l_key: vec![],
                        guard: None,
                        lag: None,
                    }
                } else {
                    NodeKind::Until {
                        w,
                        l: t,
                        r,
                        negated: false,
                        l_key: vec![],
                        guard: None,
                    }
                };
                self.push(
                    kind,
                    vars,
                    if since {
                        Op::Since(w, t, r)
                    } else {
                        Op::Until(w, t, r)
                    },
                )
            }
            _ => return Err(self.err(f, "ALWAYS and PAST_ALWAYS must be normalised away first")),
        })
    }

    /// `SINCE` and `UNTIL` (with a guard for a left operand not monitorable alone).
    fn binary(
        &mut self,
        f: &Formula,
        op: BinaryTemporal,
        interval: &rvmon_logic::Interval,
        lhs: &Formula,
        rhs: &Formula,
    ) -> Result<usize, Error> {
        let w = Window::of(interval);
        if op == BinaryTemporal::Until {
            self.bounded_future(f, &w)?;
        }
        let (negated, left) = match &lhs.kind {
            FormulaKind::Not(inner) => (true, &**inner),
            _ => (false, lhs),
        };
        let mark = self.nodes.len();
        let plain = self.compile(left);
        let r_fv = free_vars(rhs);
        let (l, negated, l_key, guard, rv, r) = match plain {
            Ok(l) => {
                let r = self.compile(rhs)?;
                let (lv, rv) = (self.nodes[l].vars.clone(), self.nodes[r].vars.clone());
                if !lv.iter().all(|v| rv.contains(v)) {
                    return Err(self.err(f, monitorable::MSG_SUBSET));
                }
                let l_key = lv.iter().map(|v| col(&rv, v)).collect();
                (l, negated, l_key, None, rv, r)
            }
            // Not monitorable alone, but its variables are bound by the right operand:
            // test it on the right operand's tuples.
            Err(e) if free_vars(lhs).iter().all(|v| r_fv.contains(v)) => {
                self.nodes.truncate(mark);
                self.shape.truncate(mark);
                let r = self.compile(rhs)?;
                let rv = self.nodes[r].vars.clone();
                let guard = self.guard(lhs, &rv).map_err(|_| e)?;
                let t = self.push(NodeKind::Const(crate::rel::unit()), vec![], Op::Const(true));
                (t, false, vec![], Some(guard), rv, r)
            }
            Err(e) => return Err(e),
        };
        let (kind, shape) = match op {
            BinaryTemporal::Since => (
                NodeKind::Since {
                    w,
                    l,
                    r,
                    negated,
                    l_key,
                    guard,
                    lag: None,
                },
                Op::Since(w, l, r),
            ),
            BinaryTemporal::Until => (
                NodeKind::Until {
                    w,
                    l,
                    r,
                    negated,
                    l_key,
                    guard,
                },
                Op::Until(w, l, r),
            ),
        };
        Ok(self.push(kind, rv, shape))
    }

    /// An aggregation.
    fn agg(
        &mut self,
        f: &Formula,
        result: &str,
        op: AggOp,
        over: &str,
        group: &[String],
        body: &Formula,
    ) -> Result<usize, Error> {
        let c = self.compile(body)?;
        let cv = self.nodes[c].vars.clone();
        let over_col = cv.iter().position(|v| v == over).ok_or_else(|| {
            self.err(
                f,
                format!("the aggregated variable `{over}` is not free in the aggregation's body"),
            )
        })?;
        let mut group_cols = Vec::new();
        for g in group {
            group_cols.push(cv.iter().position(|v| v == g).ok_or_else(|| {
                self.err(
                    f,
                    format!("the group-by variable `{g}` is not free in the aggregation's body"),
                )
            })?);
        }
        let over_ty = self.types.get(over).copied();
        if matches!(op, AggOp::Sum | AggOp::Avg | AggOp::Med) && over_ty == Some(Type::Str) {
            return Err(self.err(
                f,
                format!("type error: {} needs a numeric variable", op.keyword()),
            ));
        }
        let result_ty = match op {
            AggOp::Cnt => Type::Int,
            AggOp::Avg | AggOp::Med => Type::Float,
            _ => over_ty.unwrap_or(Type::Int),
        };
        self.note_type(f, result, result_ty)?;
        let mut vars = vec![result.to_string()];
        vars.extend(group.iter().cloned());
        let default = match (op, result_ty) {
            (AggOp::Min, Type::Float) => Value::Float(f64::INFINITY),
            (AggOp::Max, Type::Float) => Value::Float(f64::NEG_INFINITY),
            (_, Type::Float) => Value::Float(0.0),
            (_, Type::Str | Type::Regexp) => Value::Str(self.interner.intern("")),
            (_, Type::Int) => Value::Int(0),
        };
        let kind = NodeKind::Agg {
            c,
            op,
            over: over_col,
            group: group_cols,
            default,
        };
        Ok(self.push(kind, vars, Op::Not(c)))
    }

    /// `l AND (NOT) t1 SUBSTRING/MATCHES t2 (groups)`.
    #[allow(clippy::too_many_arguments)]
    fn str_rel(
        &mut self,
        f: &Formula,
        at: &Formula,
        l: usize,
        lv: &[String],
        op: StrOp,
        t1: &Term,
        t2: &Term,
        groups: &[Option<Term>],
        negated: bool,
    ) -> Result<usize, Error> {
        let bound = |t: &Term| term_vars(t).iter().all(|v| lv.contains(v));
        if !bound(t1) || !bound(t2) {
            return Err(self.err(f, monitorable::MSG_ANDRELOP));
        }
        for t in [t1, t2] {
            if let Term::Var(v) = t {
                self.note_type(
                    at,
                    v,
                    if op == StrOp::Matches && std::ptr::eq(t, t2) {
                        Type::Regexp
                    } else {
                        Type::Str
                    },
                )?;
            }
        }
        let regex = match (op, t2) {
            (StrOp::Substring, _) => None,
            (StrOp::Matches, Term::Regexp(p)) => Some(Box::new(
                rvmon_logic::strrel::compile_str_regex(p).map_err(|e| self.err(at, e))?,
            )),
            (StrOp::Matches, _) => return Err(self.err(at, "MATCHES needs a constant regular expression r\"…\" (computed ones are not supported yet)")),
        };
        let mut vars = lv.to_vec();
        let mut ops = Vec::new();
        let mut new_groups: Vec<(String, usize)> = Vec::new();
        for (k, g) in groups.iter().enumerate() {
            ops.push(match g {
                None => GroupOp::Skip,
                Some(Term::Var(v)) if lv.contains(v) => GroupOp::SameCol(col(lv, v)),
                Some(Term::Var(v)) => match new_groups.iter().find(|(n, _)| n == v) {
                    Some((_, first)) => GroupOp::SameGroup(*first),
                    None => {
                        if negated {
                            return Err(self.err(f, monitorable::MSG_ANDRELOP));
                        }
                        self.note_type(at, v, Type::Str)?;
                        new_groups.push((v.clone(), k));
                        vars.push(v.clone());
                        GroupOp::Bind
                    }
                },
                Some(t) if bound(t) => GroupOp::SameTerm(t.clone()),
                Some(_) => return Err(self.err(f, monitorable::MSG_ANDRELOP)),
            });
        }
        let kind = NodeKind::StrRel {
            l,
            lhs: t1.clone(),
            rhs: t2.clone(),
            regex,
            groups: ops,
            negated,
        };
        Ok(self.push(kind, vars, Op::Not(l)))
    }

    /// A boolean combination of monitorable subformulas whose variables are among `outer`.
    fn guard(&mut self, f: &Formula, outer: &[String]) -> Result<Guard, Error> {
        Ok(match &f.kind {
            FormulaKind::Bool(b) => Guard::Const(*b),
            FormulaKind::Not(g) => Guard::Not(Box::new(self.guard(g, outer)?)),
            FormulaKind::Bool2 {
                op: BoolOp::And,
                lhs,
                rhs,
            } => Guard::And(
                Box::new(self.guard(lhs, outer)?),
                Box::new(self.guard(rhs, outer)?),
            ),
            FormulaKind::Bool2 {
                op: BoolOp::Or,
                lhs,
                rhs,
            } => Guard::Or(
                Box::new(self.guard(lhs, outer)?),
                Box::new(self.guard(rhs, outer)?),
            ),
            _ => {
                let node = self.compile(f)?;
                let vars = &self.nodes[node].vars;
                if !vars.iter().all(|v| outer.contains(v)) {
                    return Err(self.err(f, monitorable::MSG_SUBSET));
                }
                Guard::Rel {
                    node,
                    key: vars.iter().map(|v| col(outer, v)).collect(),
                }
            }
        })
    }

    /// `EXISTS ys. ((a AND b) AND c)` as one [`NodeKind::ExistsJoin`], when `b` and `c` are
    /// positive relations (so that the general compilation would join `a` with `b`, semi-join
    /// the result with `c` and project the join's new variables away: exactly `ys`), and `b` is
    /// past-only (its timing then adds nothing to MonPoly's). `None`, with nothing compiled,
    /// otherwise.
    fn exists_join(&mut self, ys: &[String], body: &Formula) -> Option<usize> {
        let FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs: ab,
            rhs: c,
        } = &body.kind
        else {
            return None;
        };
        let FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs: a,
            rhs: b,
        } = &ab.kind
        else {
            return None;
        };
        if !positive(b) || !positive(c) {
            return None;
        }
        // The variable conditions, checked on the formulas first: compiling `a` and then
        // falling back would compile it twice, and nested `EXISTS` of this shape 2^depth times.
        if !exists_vars_fit(&free_vars(a), b, c, ys) {
            return None;
        }
        let mark = self.nodes.len();
        let fused = match self.compile(a) {
            Ok(l) => self.exists_join_over(l, ys, b, c, false),
            Err(_) => None,
        };
        self.undo_unless(mark, fused)
    }

    /// `fused`, or, when it is `None`, nothing compiled since `mark`.
    fn undo_unless(&mut self, mark: usize, fused: Option<usize>) -> Option<usize> {
        if fused.is_none() {
            self.nodes.truncate(mark);
            self.shape.truncate(mark);
        }
        fused
    }

    /// `l AND NOT EXISTS ys. (b AND c)` as one [`NodeKind::ExistsJoin`] that keeps the tuples
    /// of `l` without a witness, under the conditions of [`Compiler::exists_join`] (with `l`
    /// as `a`). The general compilation would join `b` and `c` in full at every position,
    /// project, and anti-join; this one only probes them with the tuples of `l` (PERF: the
    /// data race's common-lock test, `NOT EXISTS l. (lockset(t1,x,l) AND lockset(t2,x,l))`,
    /// for the (t1, t2, x) of one access). `None`, with nothing compiled, otherwise.
    fn not_exists_join(&mut self, l: usize, ys: &[String], body: &Formula) -> Option<usize> {
        let FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs: b,
            rhs: c,
        } = &body.kind
        else {
            return None;
        };
        if !positive(b) || !positive(c) {
            return None;
        }
        if !exists_vars_fit(&self.nodes[l].vars, b, c, ys) {
            return None;
        }
        let mark = self.nodes.len();
        let fused = self.exists_join_over(l, ys, b, c, true);
        self.undo_unless(mark, fused)
    }

    /// The [`NodeKind::ExistsJoin`] of `l` (compiled) with `b` and `c`, if the compiled
    /// operands meet its conditions.
    fn exists_join_over(
        &mut self,
        l: usize,
        ys: &[String],
        b: &Formula,
        c: &Formula,
        negated: bool,
    ) -> Option<usize> {
        let b_start = self.nodes.len();
        let r = self.compile(b).ok()?;
        let past_only = !self.shape[b_start..=r]
            .iter()
            .any(|o| matches!(o, Op::Next(..) | Op::Until(..)));
        let s = self.compile(c).ok()?;
        if !past_only {
            return None;
        }
        let kind = exists_join_kind(&self.nodes, l, r, s, ys.len(), negated)?;
        let lv = self.nodes[l].vars.clone();
        Some(self.push(kind, lv, Op::And(l, s)))
    }

    /// `AND`: anti-join, filter, assignment or join, as MonPoly's fragment prescribes.
    fn and(&mut self, f: &Formula, lhs: &Formula, rhs: &Formula) -> Result<usize, Error> {
        let l = self.compile(lhs)?;
        let lv = self.nodes[l].vars.clone();
        let (negated, right) = match &rhs.kind {
            FormulaKind::Not(inner) => (true, &**inner),
            _ => (false, rhs),
        };
        if let FormulaKind::StrRel {
            op,
            lhs: t1,
            rhs: t2,
            groups,
        } = &right.kind
        {
            return self.str_rel(f, right, l, &lv, *op, t1, t2, groups, negated);
        }
        if let FormulaKind::Cmp {
            op,
            lhs: t1,
            rhs: t2,
        } = &right.kind
        {
            self.check_cmp_types(right, t1, t2)?;
            let rv = free_vars(right);
            if rv.iter().all(|v| lv.contains(v)) {
                let resolved = self.operand(t1, &lv).zip(self.operand(t2, &lv));
                let kind = NodeKind::Filter {
                    l,
                    op: *op,
                    lhs: t1.clone(),
                    rhs: t2.clone(),
                    negated,
                    resolved: resolved.map(|(a, b)| [a, b]),
                };
                return Ok(self.push(kind, lv, Op::Not(l)));
            }
            if !negated && *op == CmpOp::Eq {
                for (x, t) in [(t1, t2), (t2, t1)] {
                    if let Term::Var(x) = x {
                        let tv = free_vars(&Formula::new(
                            FormulaKind::Cmp {
                                op: CmpOp::Eq,
                                lhs: t.clone(),
                                rhs: Term::Int(0),
                            },
                            Default::default(),
                        ));
                        if !lv.contains(x) && tv.iter().all(|v| lv.contains(v)) {
                            if let Some(ty) = self.term_type(t) {
                                self.note_type(right, x, ty)?;
                            }
                            let mut vars = lv.clone();
                            vars.push(x.clone());
                            return Ok(self.push(
                                NodeKind::Assign { l, term: t.clone() },
                                vars,
                                Op::Not(l),
                            ));
                        }
                    }
                }
            }
            return Err(self.err(f, monitorable::MSG_ANDRELOP));
        }
        if negated {
            if let FormulaKind::Quant {
                q: Quant::Exists,
                vars: ys,
                body,
            } = &right.kind
            {
                if let Some(node) = self.not_exists_join(l, ys, body) {
                    return Ok(node);
                }
            }
            let r = self.compile(right)?;
            let rv = self.nodes[r].vars.clone();
            if !rv.iter().all(|v| lv.contains(v)) {
                return Err(self.err(f, monitorable::MSG_SUBSET));
            }
            let key = rv.iter().map(|v| col(&lv, v)).collect();
            return Ok(self.push(NodeKind::AntiJoin { l, r, key }, lv, Op::And(l, r)));
        }
        let r = self.compile(rhs)?;
        let rv = self.nodes[r].vars.clone();
        let shared = rv
            .iter()
            .enumerate()
            .filter_map(|(ri, v)| lv.iter().position(|x| x == v).map(|li| (li, ri)))
            .collect();
        let r_new: Vec<usize> = (0..rv.len()).filter(|&ri| !lv.contains(&rv[ri])).collect();
        let mut vars = lv.clone();
        vars.extend(r_new.iter().map(|&ri| rv[ri].clone()));
        Ok(self.push(
            NodeKind::Join {
                l,
                r,
                shared,
                r_new,
            },
            vars,
            Op::And(l, r),
        ))
    }
}

/// The [`NodeKind::ExistsJoin`] of `l` with witnesses from `r` tested in `s` (compiled), if
/// `r` binds exactly `new` variables that `l` lacks and `s` binds none that `l` and `r` lack.
fn exists_join_kind(
    nodes: &[Node],
    l: usize,
    r: usize,
    s: usize,
    new: usize,
    negated: bool,
) -> Option<NodeKind> {
    let (lv, rv, sv) = (&nodes[l].vars, &nodes[r].vars, &nodes[s].vars);
    let r_new: Vec<usize> = (0..rv.len()).filter(|&k| !lv.contains(&rv[k])).collect();
    let mut joined = lv.clone();
    joined.extend(r_new.iter().map(|&k| rv[k].clone()));
    if r_new.len() != new || !sv.iter().all(|v| joined.contains(v)) {
        return None;
    }
    let shared = rv
        .iter()
        .enumerate()
        .filter_map(|(k, v)| lv.iter().position(|x| x == v).map(|li| (li, k)))
        .collect();
    let s_key = sv.iter().map(|v| col(&joined, v)).collect();
    Some(NodeKind::ExistsJoin {
        l,
        r,
        shared,
        r_new,
        s,
        s_key,
        negated,
        over: None,
    })
}

/// For each node, whether it or a node below it is a future operator (`NEXT`, `UNTIL`); one
/// pass, as a node's operands come before it.
pub fn future_below(nodes: &[Node]) -> Vec<bool> {
    let mut future = vec![false; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        future[i] = matches!(node.kind, NodeKind::Next { .. } | NodeKind::Until { .. })
            || node.kind.reads().iter().any(|&c| future[c]);
    }
    future
}

/// The variable conditions of an exists-join, checked on the formulas before anything is
/// compiled: `b` binds exactly `ys` beyond the left operand's variables `outer` (none of `ys`
/// among them), and `c` binds nothing new.
fn exists_vars_fit(outer: &[String], b: &Formula, c: &Formula, ys: &[String]) -> bool {
    let (bv, cv) = (free_vars(b), free_vars(c));
    let new: Vec<&String> = bv.iter().filter(|v| !outer.contains(v)).collect();
    new.len() == ys.len()
        && new.iter().all(|v| ys.contains(v))
        && cv.iter().all(|v| outer.contains(v) || bv.contains(v))
        && !ys.iter().any(|y| outer.contains(y))
}

/// Whether `f` is a relation that an exists-join can probe or test (not a negation or a
/// comparison, which need their variables bound).
fn positive(f: &Formula) -> bool {
    !matches!(
        f.kind,
        FormulaKind::Not(_) | FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. }
    )
}

/// Replaces uses of `LET`-defined predicates by their definitions, innermost scope first.
///
/// A use `a(t1, …, tn)` of `LET a(p1, …, pn) = φ` becomes `φ` with each `pi` renamed to `ti`
/// when `ti` is a variable (not already taken by an earlier parameter), and otherwise to a fresh
/// variable `vi` constrained by `vi = ti` under an `EXISTS`. Every other variable of `φ` (all
/// bound there) is renamed apart first, so that no argument is captured.
pub fn expand_lets(f: &Formula) -> Formula {
    let mut fresh = 0usize;
    go(f, &[], &mut fresh)
}

fn rename_term(t: &Term, map: &HashMap<String, String>) -> Term {
    t.rename_vars(&|v| map.get(v).cloned())
}

/// Renames variables everywhere (free and bound occurrences alike).
fn rename(f: &Formula, map: &HashMap<String, String>) -> Formula {
    let r = |v: &String| map.get(v).cloned().unwrap_or_else(|| v.clone());
    let mut g = f.clone();
    match &mut g.kind {
        FormulaKind::Pred { args, .. } => args.iter_mut().for_each(|a| *a = rename_term(a, map)),
        FormulaKind::Cmp { lhs, rhs, .. } => {
            *lhs = rename_term(lhs, map);
            *rhs = rename_term(rhs, map);
        }
        FormulaKind::Quant { vars, .. } => vars.iter_mut().for_each(|v| *v = r(v)),
        FormulaKind::Agg {
            result,
            over,
            group,
            ..
        } => {
            *result = r(result);
            *over = r(over);
            group.iter_mut().for_each(|v| *v = r(v));
        }
        _ => {}
    }
    replace_children(&g, &mut |c| rename(c, map))
}

fn all_vars(f: &Formula, out: &mut Vec<String>) {
    let mut add = |v: &String| {
        if !out.contains(v) {
            out.push(v.clone())
        }
    };
    match &f.kind {
        FormulaKind::Quant { vars, .. } => vars.iter().for_each(&mut add),
        FormulaKind::Agg {
            result,
            over,
            group,
            ..
        } => {
            add(result);
            add(over);
            group.iter().for_each(&mut add);
        }
        _ => {}
    }
    for v in free_vars(f) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    for c in f.children() {
        all_vars(c, out);
    }
}

type LetDef = (String, Vec<String>, Formula);

fn go(f: &Formula, defs: &[LetDef], fresh: &mut usize) -> Formula {
    match &f.kind {
        FormulaKind::Let {
            name,
            params,
            def,
            body,
        } => {
            let def = go(def, defs, fresh);
            let mut inner = defs.to_vec();
            inner.push((name.clone(), params.clone(), def));
            go(body, &inner, fresh)
        }
        FormulaKind::Pred { name, args } => match defs
            .iter()
            .rev()
            .find(|d| &d.0 == name && d.1.len() == args.len())
        {
            Some((_, params, def)) => {
                let mut map = HashMap::new();
                let mut vars = Vec::new();
                all_vars(def, &mut vars);
                for v in vars.iter().filter(|v| !params.contains(v)) {
                    *fresh += 1;
                    map.insert(v.clone(), format!("_{v}{fresh}"));
                }
                let mut constraints = Vec::new();
                let mut taken: Vec<&String> = Vec::new();
                for (p, a) in params.iter().zip(args) {
                    match a {
                        Term::Var(v) if !taken.contains(&v) => {
                            taken.push(v);
                            map.insert(p.clone(), v.clone());
                        }
                        t => {
                            *fresh += 1;
                            let v = format!("_{p}{fresh}");
                            map.insert(p.clone(), v.clone());
                            constraints.push((v, t.clone()));
                        }
                    }
                }
                let mut out = rename(def, &map);
                if !constraints.is_empty() {
                    let span = f.span;
                    for (v, t) in &constraints {
                        let eq = Formula::new(
                            FormulaKind::Cmp {
                                op: CmpOp::Eq,
                                lhs: Term::Var(v.clone()),
                                rhs: t.clone(),
                            },
                            span,
                        );
                        out = Formula::new(
                            FormulaKind::Bool2 {
                                op: BoolOp::And,
                                lhs: Box::new(out),
                                rhs: Box::new(eq),
                            },
                            span,
                        );
                    }
                    let vars = constraints.into_iter().map(|c| c.0).collect();
                    out = Formula::new(
                        FormulaKind::Quant {
                            q: Quant::Exists,
                            vars,
                            body: Box::new(out),
                        },
                        span,
                    );
                }
                out
            }
            None => f.clone(),
        },
        _ => replace_children(f, &mut |c| go(c, defs, fresh)),
    }
}

/// `f` with each direct subformula `c` replaced by `g(c)`, left to right. (It cloned `f`
/// whole and then replaced the clones' children: every level copied its subtree, quadratic in
/// the depth of the formula and `n log n` in the length of a chain.)
fn replace_children(f: &Formula, g: &mut dyn FnMut(&Formula) -> Formula) -> Formula {
    rvmon_logic::monpoly::map_children(f, g)
}

/// Pushes `EXISTS` down to the subformula that uses the variable: through `PREVIOUS`, `NEXT`,
/// `ONCE`, `EVENTUALLY`, into the right operand of `SINCE`/`UNTIL` when the left one does not
/// mention the variable, into the one conjunct that does, and into both sides of `OR`.
///
/// PERF: temporal state then holds projected tuples. `EXISTS m. PREVIOUS (NOT close(f) SINCE
/// open(f,m))` keeps one tuple per open file instead of one per (file, mode), and the
/// projection no longer runs over the whole state at every time point.
pub fn push_exists(f: &Formula) -> Formula {
    let f = replace_children(f, &mut push_exists);
    match &f.kind {
        FormulaKind::Quant {
            q: Quant::Exists,
            vars,
            body,
        } => {
            let mut g = (**body).clone();
            let mut kept = Vec::new();
            for v in vars {
                match push_var(v, &g) {
                    Some(h) => g = h,
                    None => kept.push(v.clone()),
                }
            }
            if kept.is_empty() {
                g
            } else {
                Formula::new(
                    FormulaKind::Quant {
                        q: Quant::Exists,
                        vars: kept,
                        body: Box::new(g),
                    },
                    f.span,
                )
            }
        }
        _ => f,
    }
}

/// `EXISTS v. f`, pushed below the top of `f` when possible.
fn push_var(v: &String, f: &Formula) -> Option<Formula> {
    let span = f.span;
    let exists = |g: &Formula| {
        push_var(v, g).unwrap_or_else(|| {
            Formula::new(
                FormulaKind::Quant {
                    q: Quant::Exists,
                    vars: vec![v.clone()],
                    body: Box::new(g.clone()),
                },
                g.span,
            )
        })
    };
    let mentions = |g: &Formula| free_vars(g).contains(v);
    if !mentions(f) {
        return Some(f.clone());
    }
    Some(match &f.kind {
        FormulaKind::Unary { op, interval, body }
            if matches!(
                op,
                UnaryTemporal::Previous
                    | UnaryTemporal::Next
                    | UnaryTemporal::Once
                    | UnaryTemporal::Eventually
            ) =>
        {
            Formula::new(
                FormulaKind::Unary {
                    op: *op,
                    interval: *interval,
                    body: Box::new(exists(body)),
                },
                span,
            )
        }
        FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs,
        } if !mentions(lhs) => Formula::new(
            FormulaKind::Binary {
                op: *op,
                interval: *interval,
                lhs: lhs.clone(),
                rhs: Box::new(exists(rhs)),
            },
            span,
        ),
        FormulaKind::Bool2 {
            op: BoolOp::Or,
            lhs,
            rhs,
        } => Formula::new(
            FormulaKind::Bool2 {
                op: BoolOp::Or,
                lhs: Box::new(exists(lhs)),
                rhs: Box::new(exists(rhs)),
            },
            span,
        ),
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } if !mentions(rhs) => Formula::new(
            FormulaKind::Bool2 {
                op: BoolOp::And,
                lhs: Box::new(exists(lhs)),
                rhs: rhs.clone(),
            },
            span,
        ),
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } if !mentions(lhs) => Formula::new(
            FormulaKind::Bool2 {
                op: BoolOp::And,
                lhs: lhs.clone(),
                rhs: Box::new(exists(rhs)),
            },
            span,
        ),
        _ => return None,
    })
}

/// Compiles a normalised formula. `output_vars` is the order in which results are reported
/// (MonPoly: the free variables of the input formula).
pub fn compile(
    f: &Formula,
    output_vars: &[String],
    sig: &Signature,
    interner: &mut Interner,
    file: &str,
    text: &str,
) -> Result<Plan, Error> {
    compile_with(
        Arithmetic::MonPoly,
        f,
        output_vars,
        sig,
        interner,
        file,
        text,
    )
}

/// [`compile`] with the given arithmetic conventions, for constants and at run time.
pub fn compile_with(
    arithmetic: Arithmetic,
    f: &Formula,
    output_vars: &[String],
    sig: &Signature,
    interner: &mut Interner,
    file: &str,
    text: &str,
) -> Result<Plan, Error> {
    let f = expand_lets(f);
    let source = Source {
        sig,
        file,
        text,
        arithmetic,
    };
    // The optimised form first; the formula as given if the optimisation made it unmonitorable.
    let pushed = push_exists(&f);
    if pushed != f {
        if let Ok(plan) = compile_plan(&pushed, output_vars, &source, interner) {
            return Ok(plan);
        }
    }
    compile_plan(&f, output_vars, &source, interner)
}

/// What a plan is compiled against, besides the formula.
struct Source<'a> {
    sig: &'a Signature,
    file: &'a str,
    text: &'a str,
    arithmetic: Arithmetic,
}

fn compile_plan(
    f: &Formula,
    output_vars: &[String],
    source: &Source,
    interner: &mut Interner,
) -> Result<Plan, Error> {
    let Source {
        sig,
        file,
        text,
        arithmetic,
    } = *source;
    let mut c = Compiler {
        arithmetic,
        nodes: Vec::new(),
        shape: Vec::new(),
        sig,
        interner,
        file,
        text,
        types: Types::new(),
    };
    c.infer(f)?;
    let root = c.compile(f)?;
    let root_vars = &c.nodes[root].vars;
    let output_order = output_vars.iter().map(|v| col(root_vars, v)).collect();
    Ok(Plan {
        nodes: share_up_to_renaming(fuse_joins_into_exists_joins(share_common_subplans(c.nodes))),
        output_order,
        shape: c.shape,
        arithmetic,
    })
}

/// Common subexpressions: identical nodes over identical operands become one node, which all
/// their consumers read (a formula often repeats a subformula: fifo's `PREVIOUS ONCE enter(x)`
/// in two clauses, the data-race property's locksets in both disjuncts; each copy kept the
/// same state). Nodes are in post-order, so operands are shared before the nodes over them.
/// Nodes no longer read are dropped; the root stays last. ([`Plan::shape`] keeps the
/// formula's tree: MonPoly's timing is that of the unshared operators.)
fn share_common_subplans(nodes: Vec<Node>) -> Vec<Node> {
    share_subplans(nodes, false)
}

/// Nodes that are the same up to the names of their columns become one node, read by all
/// their readers (PERF: the data race's `lockset(t1, x, l)` and `lockset(t2, x, l)` are one
/// state, and so are fifo's scans of `enter(x)`, `enter(y)` and `enter(z)`; each copy kept
/// the same state and did the same work at every time point). Operators find their operands'
/// columns by position, so a reader may know a column by another name than the node's own
/// (`renamed`). The operators that evaluate terms by name (filters, string relations,
/// assignments) stay distinct unless their names agree too, and use their own names, never
/// their operand's. Run after [`fuse_joins_into_exists_joins`], whose choices compare the
/// names of its operands.
fn share_up_to_renaming(nodes: Vec<Node>) -> Vec<Node> {
    share_subplans(nodes, true)
}

/// Merges each node into the first one with the same key: the debug form of its operator, its
/// parameters (columns by position) and its (already shared) operands, with its column names
/// unless `up_to_renaming` (they still count for the operators that evaluate terms by name).
/// A node read under other names than its own is marked `renamed`.
fn share_subplans(mut nodes: Vec<Node>, up_to_renaming: bool) -> Vec<Node> {
    let n = nodes.len();
    let mut same: Vec<usize> = Vec::with_capacity(n);
    let mut seen: HashMap<String, usize> = HashMap::new();
    for i in 0..n {
        nodes[i].kind.map_nodes(&mut |c| same[c]);
        let node = &nodes[i];
        let names_matter = !up_to_renaming
            || matches!(
                node.kind,
                NodeKind::Filter { .. } | NodeKind::StrRel { .. } | NodeKind::Assign { .. }
            );
        let key = if names_matter {
            format!("{:?}", (&node.kind, &node.vars))
        } else {
            format!("{:?}", (&node.kind, node.vars.len()))
        };
        let first = *seen.entry(key).or_insert(i);
        if nodes[first].vars != nodes[i].vars {
            nodes[first].renamed = true;
        }
        same.push(first);
    }
    drop_unread(nodes, same[n - 1])
}

/// An exists-join (or anti-exists-join) whose left operand is a join that nothing else reads
/// makes the join's pairs itself, and tests each before keeping it: the join's output is never
/// built. (PERF: the data race's anti-exists-joins test every (t1, x, t2) of an access, and
/// keep almost none; building them all as the join's relation first was a third of its
/// instructions.) Run after sharing, which decides what else reads a node.
fn fuse_joins_into_exists_joins(mut nodes: Vec<Node>) -> Vec<Node> {
    let mut readers = vec![0usize; nodes.len()];
    for node in &nodes {
        for c in node.kind.reads() {
            readers[c] += 1;
        }
    }
    let future = future_below(&nodes);
    let mut fused = false;
    for e in 0..nodes.len() {
        let NodeKind::ExistsJoin {
            l,
            r,
            s,
            r_new: ref ys,
            negated,
            over: None,
            ..
        } = nodes[e].kind
        else {
            continue;
        };
        let ys = ys.len();
        let NodeKind::Join {
            l: a,
            r: b,
            ref shared,
            ref r_new,
        } = nodes[l].kind
        else {
            continue;
        };
        if readers[l] != 1 || a == b {
            continue;
        }
        let join = JoinOver {
            r: b,
            shared: shared.clone(),
            r_new: r_new.clone(),
        };
        // Witnesses are looked up by the columns they share with the pair. When those of `s`
        // all come from the join's left operand and those of `r` do not, the roles are swapped:
        // the pairs of one left tuple then share one lookup (PERF: the data race's second
        // disjunct, whose pairs (t2, x, t1) looked up `lockset(t1, x, l)` once per t1).
        // Keyed by the left operand: sharing some column with the pair (a lookup by no column
        // would walk the whole operand), all of them from the left operand.
        let from_left = |x: usize| {
            let outer = || nodes[x].vars.iter().filter(|v| nodes[l].vars.contains(v));
            outer().next().is_some() && outer().all(|v| nodes[a].vars.contains(v))
        };
        if !from_left(r) && from_left(s) && !future[s] {
            if let Some(swapped) = exists_join_kind(&nodes, l, s, r, ys, negated) {
                nodes[e].kind = swapped;
            }
        }
        if let NodeKind::ExistsJoin { l, over, .. } = &mut nodes[e].kind {
            *l = a;
            *over = Some(join);
        }
        fused = true;
    }
    if !fused {
        return nodes;
    }
    let root = nodes.len() - 1;
    drop_unread(nodes, root)
}

/// The nodes that `root` reads, directly or not, renumbered in order; the root stays last.
fn drop_unread(nodes: Vec<Node>, root: usize) -> Vec<Node> {
    let n = nodes.len();
    let mut live = vec![false; n];
    live[root] = true;
    for i in (0..n).rev() {
        if live[i] {
            for c in nodes[i].kind.reads() {
                live[c] = true;
            }
        }
    }
    let mut new_id = vec![usize::MAX; n];
    let mut kept = Vec::new();
    for (i, mut node) in nodes.into_iter().enumerate() {
        if live[i] {
            new_id[i] = kept.len();
            node.kind.map_nodes(&mut |c| new_id[c]);
            kept.push(node);
        }
    }
    kept
}

fn term_vars(t: &Term) -> Vec<String> {
    let f = Formula::new(
        FormulaKind::Cmp {
            op: CmpOp::Eq,
            lhs: t.clone(),
            rhs: Term::Int(0),
        },
        Default::default(),
    );
    free_vars(&f)
}

#[cfg(test)]
mod tests {
    use super::{Guard, GuardTrigger};

    fn rel(node: usize) -> Guard {
        Guard::Rel {
            node,
            key: vec![0, 1],
        }
    }

    fn not(g: Guard) -> Guard {
        Guard::Not(Box::new(g))
    }

    fn and(a: Guard, b: Guard) -> Guard {
        Guard::And(Box::new(a), Box::new(b))
    }

    fn or(a: Guard, b: Guard) -> Guard {
        Guard::Or(Box::new(a), Box::new(b))
    }

    #[test]
    fn a_lockset_guard_can_fail_only_where_an_access_happens() {
        // NOT ((read OR write) AND NOT held): false only where read or write holds.
        let g = not(and(or(rel(1), rel(2)), not(rel(3))));
        assert_eq!(
            g.trigger(),
            Some(GuardTrigger {
                key: vec![0, 1],
                leaves: vec![1, 2]
            })
        );
    }

    #[test]
    fn a_positive_leaf_can_fail_anywhere() {
        assert_eq!(rel(1).trigger(), None);
        assert_eq!(and(rel(1), not(rel(2))).trigger(), None);
        // `x OR NOT y` fails only where y holds.
        assert_eq!(
            or(rel(1), not(rel(2))).trigger().map(|t| t.leaves),
            Some(vec![2])
        );
        assert_eq!(
            and(not(rel(1)), not(rel(2))).trigger().map(|t| t.leaves),
            Some(vec![1, 2])
        );
        assert_eq!(Guard::Const(true).trigger().map(|t| t.leaves), Some(vec![]));
        assert_eq!(Guard::Const(false).trigger(), None);
    }

    #[test]
    fn leaves_over_other_columns_give_no_trigger() {
        let other = Guard::Rel {
            node: 2,
            key: vec![1],
        };
        assert_eq!(and(not(rel(1)), not(other)).trigger(), None);
    }
}
