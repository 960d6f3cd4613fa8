//! From a specification to the engine's program, as R2U2's compiler (C2PO) makes it, pass
//! for pass, because the verdict lines R2U2 prints depend on the operator tree that runs:
//!
//! 1. **Atoms.** What is not temporal logic (signals, comparisons, arithmetic: C2PO's
//!    "booleanizer") becomes an atom, computed from the signals at each step.
//! 2. **Rewrites** (C2PO's `optimize_rewrites`, on by default): one bottom-up pass of its rules,
//!    such as `!!p = p`, `G[a,b]G[c,d]p = G[a+c,b+d]p`, `G[..]p && G[..]q = G[..](G[..]p && G[..]q)`.
//!    A node a rule makes is not rewritten again.
//! 3. **Core operators** (`remove_extended_operators`): `p xor q = !(p <-> q)`,
//!    `p -> q = !p || q`, `F p = true U p`, `G p = false R p`, `O p = true S p`,
//!    `H p = false T p`.
//! 4. **Sharing** (`optimize_cse`, on by default): equal subformulas of the future-time
//!    formulas are one node, and of the past-time ones.
//! 5. **Assembly**: the future-time formulas' nodes in post order, formula by formula, then
//!    the past-time ones'; each formula ends in a `Return` node.
//! 6. **Queue sizes**: from each node's best and worst propagation delays (`bpd`, `wpd`):
//!    `max(0, max over its siblings' wpd − its bpd) + 1` slots.

use std::collections::HashMap;

use crate::engine::{Kind, Node, Operand, Time};
use crate::syntax::{Expr, Formula, Op, Spec, Temporal};

/// C2PO's optimisations, both on in `r2u2_cli run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub rewrite: bool,
    pub cse: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rewrite: true,
            cse: true,
        }
    }
}

/// The compiled specification.
#[derive(Clone, Debug)]
pub struct Program {
    pub nodes: Vec<Node>,
    /// The atoms' expressions, by atom index (over the signals).
    pub atoms: Vec<Expr>,
    /// Per formula number: its label.
    pub labels: Vec<Option<String>>,
}

/// A formula as the passes see it: atoms numbered, temporal operators with their bounds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum T {
    Atom(usize),
    Const(bool),
    Not(Box<T>),
    Bin(B, Box<T>, Box<T>),
    Unary(Temporal, Time, Time, Box<T>),
    Binary(Temporal, Time, Time, Box<T>, Box<T>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum B {
    And,
    Or,
    Implies,
    Iff,
    Xor,
}

pub fn compile(spec: &Spec, options: Options) -> Program {
    let mut atoms: Vec<Expr> = Vec::new();
    let mut trees: Vec<(&Formula, T)> = spec
        .formulas
        .iter()
        .map(|f| (f, atomize(&f.expr, &mut atoms)))
        .collect();
    for (_, t) in &mut trees {
        if options.rewrite {
            rewrite(t);
        }
        core(t);
    }
    let mut nodes = Vec::new();
    for past in [false, true] {
        let mut shared: HashMap<T, usize> = HashMap::new();
        for (f, t) in trees.iter().filter(|(f, _)| f.past == past) {
            let root = assemble(t, &mut nodes, options.cse.then_some(&mut shared));
            nodes.push(Node {
                kind: Kind::Return(f.id),
                operands: [root, Operand::Const(false)],
                lb: 0,
                ub: 0,
                size: 1,
            });
        }
    }
    size_queues(&mut nodes);
    Program {
        nodes,
        atoms,
        labels: spec.formulas.iter().map(|f| f.label.clone()).collect(),
    }
}

/// The formula `e` with its non-temporal-logic parts as atoms (added to `atoms`, each once).
fn atomize(e: &Expr, atoms: &mut Vec<Expr>) -> T {
    let mut atom = |e: &Expr| {
        let k = atoms.iter().position(|a| a == e).unwrap_or_else(|| {
            atoms.push(e.clone());
            atoms.len() - 1
        });
        T::Atom(k)
    };
    match e {
        Expr::Bool(b) => T::Const(*b),
        Expr::Not(a) => T::Not(Box::new(atomize(a, atoms))),
        Expr::Binary(op @ (Op::And | Op::Or | Op::Implies | Op::Iff | Op::Xor), a, b) => {
            let op = match op {
                Op::And => B::And,
                Op::Or => B::Or,
                Op::Implies => B::Implies,
                Op::Iff => B::Iff,
                _ => B::Xor,
            };
            T::Bin(op, Box::new(atomize(a, atoms)), Box::new(atomize(b, atoms)))
        }
        // (C2PO's rewrite of a comparison with a Boolean constant: `p == true` is `p`.)
        Expr::Binary(Op::Eq, a, b) if matches!(**b, Expr::Bool(true)) && is_logic(a) => {
            atomize(a, atoms)
        }
        Expr::Binary(Op::Eq, a, b) if matches!(**a, Expr::Bool(true)) && is_logic(b) => {
            atomize(b, atoms)
        }
        Expr::Unary(t, lb, ub, a) => T::Unary(*t, *lb, *ub, Box::new(atomize(a, atoms))),
        Expr::Until(t, lb, ub, a, b) => T::Binary(
            *t,
            *lb,
            *ub,
            Box::new(atomize(a, atoms)),
            Box::new(atomize(b, atoms)),
        ),
        other => atom(other),
    }
}

/// Whether `e` is a formula of the logic (not a number).
fn is_logic(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Bool(_) | Expr::Not(_) | Expr::Unary(..) | Expr::Until(..)
    ) || matches!(
        e,
        Expr::Binary(Op::And | Op::Or | Op::Implies | Op::Iff | Op::Xor, ..)
    )
}

fn g(lb: Time, ub: Time, t: T) -> T {
    T::Unary(Temporal::Global, lb, ub, Box::new(t))
}

fn f(lb: Time, ub: Time, t: T) -> T {
    T::Unary(Temporal::Future, lb, ub, Box::new(t))
}

/// C2PO's rewrite pass: bottom up, each node once; what a rule makes is not looked at again
/// (but its parent sees it).
fn rewrite(t: &mut T) {
    match t {
        T::Not(a) => rewrite(a),
        T::Bin(_, a, b) | T::Binary(_, _, _, a, b) => {
            rewrite(a);
            rewrite(b);
        }
        T::Unary(_, _, _, a) => rewrite(a),
        T::Atom(_) | T::Const(_) => {}
    }
    if let Some(new) = rewritten(t) {
        *t = new;
    }
}

/// The rule that applies at `t` (its operands already rewritten), if one does.
fn rewritten(t: &T) -> Option<T> {
    use Temporal::{Future as Fu, Global as Gl};
    match t {
        T::Not(a) => match &**a {
            T::Const(b) => Some(T::Const(!b)),
            T::Not(p) => Some((**p).clone()),
            T::Unary(Gl, lb, ub, p) => match &**p {
                T::Not(q) => Some(f(*lb, *ub, (**q).clone())),
                _ => None,
            },
            T::Unary(Fu, lb, ub, p) => match &**p {
                T::Not(q) => Some(g(*lb, *ub, (**q).clone())),
                _ => None,
            },
            _ => None,
        },
        T::Unary(op @ (Gl | Fu), lb, ub, p) => nested(*op, *lb, *ub, p),
        T::Bin(B::And, a, b) => match (&**a, &**b) {
            (T::Unary(Gl, l1, u1, p), T::Unary(Gl, l2, u2, q)) => {
                merge(Gl, (*l1, *u1, p), (*l2, *u2, q))
            }
            (T::Unary(Fu, l1, u1, p), T::Unary(Fu, l2, u2, q)) if p == q => {
                narrower(Fu, (*l1, *u1), (*l2, *u2), p)
            }
            (
                T::Binary(Temporal::Until, l1, u1, p, q),
                T::Binary(Temporal::Until, l2, u2, r, s),
            ) if q == s && l1 == l2 => {
                let left = T::Bin(B::And, p.clone(), r.clone());
                Some(T::Binary(
                    Temporal::Until,
                    *l1,
                    (*u1).min(*u2),
                    Box::new(left),
                    q.clone(),
                ))
            }
            _ => None,
        },
        T::Bin(B::Or, a, b) => match (&**a, &**b) {
            (T::Unary(Fu, l1, u1, p), T::Unary(Fu, l2, u2, q)) => {
                merge(Fu, (*l1, *u1, p), (*l2, *u2, q))
            }
            (T::Unary(Gl, l1, u1, p), T::Unary(Gl, l2, u2, q)) if p == q => {
                // G[l1,u1]p || G[l2,u2]p: the narrower one.
                if l1 >= l2 && u1 <= u2 {
                    Some(g(*l1, *u1, (**p).clone()))
                } else if l2 >= l1 && u2 <= u1 {
                    Some(g(*l2, *u2, (**p).clone()))
                } else {
                    None
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// `G`/`F` of a constant, of `G`, or of `F`; and `[0,0]`.
fn nested(op: Temporal, lb: Time, ub: Time, p: &T) -> Option<T> {
    use Temporal::{Future as Fu, Global as Gl};
    let make = |o: Temporal, lb, ub, p: &T| T::Unary(o, lb, ub, Box::new(p.clone()));
    // (C2PO tests the rules in turn, a later one overriding: `[0,0]` first.)
    let mut new = (lb == 0 && ub == 0).then(|| p.clone());
    let other = if op == Gl { Fu } else { Gl };
    match p {
        // G[l,u] true = true; F[l,u] false = false (not the converse: a trace too short for
        // the window satisfies G[l,u] false and not F[l,u] true).
        T::Const(b) if *b == (op == Gl) => new = Some(T::Const(*b)),
        T::Const(_) => {}
        T::Unary(o, l2, u2, q) if *o == op => {
            new = Some(make(op, lb.saturating_add(*l2), ub.saturating_add(*u2), q))
        }
        T::Unary(o, l2, u2, q) if *o == other => {
            let (l, u) = (lb.saturating_add(*l2), ub.saturating_add(*u2));
            if lb == ub {
                new = Some(make(other, l, u, q));
            } else if l2 == u2 {
                new = Some(make(op, l, u, q));
            }
        }
        _ => {}
    }
    new
}

/// `G..p && G..q` (and `F..p || F..q`): one window when `p` and `q` are the same formula and
/// the windows meet or overlap; otherwise the common part of the windows taken out.
fn merge(op: Temporal, (l1, u1, p): (Time, Time, &T), (l2, u2, q): (Time, Time, &T)) -> Option<T> {
    let make = |lb, ub, t: T| T::Unary(op, lb, ub, Box::new(t));
    if p == q {
        let p = p.clone();
        return if l1 <= l2 && u1 >= u2 {
            Some(make(l1, u1, p))
        } else if l2 <= l1 && u2 >= u1 {
            Some(make(l2, u2, p))
        } else if l1 <= l2 && l2 <= u1.saturating_add(1) {
            Some(make(l1, u1.max(u2), p))
        } else if l2 <= l1 && l1 <= u2.saturating_add(1) {
            Some(make(l2, u1.max(u2), p))
        } else {
            None
        };
    }
    let l3 = l1.min(l2);
    let u3 = l3 + (u1 - l1).min(u2 - l2);
    let b = if op == Temporal::Global {
        B::And
    } else {
        B::Or
    };
    let inner = T::Bin(
        b,
        Box::new(make(l1 - l3, u1 - u3, p.clone())),
        Box::new(make(l2 - l3, u2 - u3, q.clone())),
    );
    Some(make(l3, u3, inner))
}

/// `F[l1,u1]p && F[l2,u2]p`: the inner window, when one holds the other.
fn narrower(op: Temporal, (l1, u1): (Time, Time), (l2, u2): (Time, Time), p: &T) -> Option<T> {
    let make = |lb, ub| T::Unary(op, lb, ub, Box::new(p.clone()));
    if l1 <= l2 && u1 >= u2 {
        Some(make(l2, u2))
    } else if l2 <= l1 && u2 >= u1 {
        Some(make(l1, u1))
    } else {
        None
    }
}

/// The core operators only (C2PO's `remove_extended_operators`), bottom up.
fn core(t: &mut T) {
    match t {
        T::Not(a) => core(a),
        T::Bin(_, a, b) | T::Binary(_, _, _, a, b) => {
            core(a);
            core(b);
        }
        T::Unary(_, _, _, a) => core(a),
        T::Atom(_) | T::Const(_) => {}
    }
    let new = match std::mem::replace(t, T::Const(false)) {
        T::Bin(B::Xor, a, b) => T::Not(Box::new(T::Bin(B::Iff, a, b))),
        T::Bin(B::Implies, a, b) => T::Bin(B::Or, Box::new(T::Not(a)), b),
        T::Unary(op, lb, ub, p) => {
            let (binary, constant) = match op {
                Temporal::Future => (Temporal::Until, true),
                Temporal::Global => (Temporal::Release, false),
                Temporal::Once => (Temporal::Since, true),
                _ => (Temporal::Trigger, false),
            };
            T::Binary(binary, lb, ub, Box::new(T::Const(constant)), p)
        }
        other => other,
    };
    *t = new;
}

/// Adds the nodes of `t` in post order (left operand first); the operand that reads it.
/// With `shared`, a subformula met before is that node again.
fn assemble(t: &T, nodes: &mut Vec<Node>, mut shared: Option<&mut HashMap<T, usize>>) -> Operand {
    if let T::Const(b) = t {
        return Operand::Const(*b);
    }
    if let Some(&k) = shared.as_ref().and_then(|s| s.get(t)) {
        return Operand::Node(k);
    }
    let (kind, operands, lb, ub) = match t {
        T::Atom(a) => (Kind::Load, [Operand::Atom(*a), Operand::Const(false)], 0, 0),
        T::Not(a) => {
            let a = assemble(a, nodes, shared.as_deref_mut());
            (Kind::Not, [a, Operand::Const(false)], 0, 0)
        }
        T::Bin(op, a, b) => {
            let a = assemble(a, nodes, shared.as_deref_mut());
            let b = assemble(b, nodes, shared.as_deref_mut());
            let kind = match op {
                B::And => Kind::And,
                B::Or => Kind::Or,
                _ => Kind::Equiv,
            };
            (kind, [a, b], 0, 0)
        }
        T::Binary(op, lb, ub, a, b) => {
            let a = assemble(a, nodes, shared.as_deref_mut());
            let b = assemble(b, nodes, shared.as_deref_mut());
            let kind = match op {
                Temporal::Until => Kind::Until,
                Temporal::Release => Kind::Release,
                Temporal::Since => Kind::Since,
                _ => Kind::Trigger,
            };
            (kind, [a, b], *lb, *ub)
        }
        T::Unary(..) | T::Const(_) => unreachable!("core operators only, constants above"),
    };
    nodes.push(Node {
        kind,
        operands,
        lb,
        ub,
        size: 1,
    });
    let k = nodes.len() - 1;
    if let Some(s) = shared {
        s.insert(t.clone(), k);
    }
    Operand::Node(k)
}

/// Each queue's size: `max(0, max over the node's siblings' wpd − its bpd) + 1`, where a
/// node's siblings are the other operands of the nodes that read it.
fn size_queues(nodes: &mut [Node]) {
    let n = nodes.len();
    let (mut bpd, mut wpd) = (vec![0i64; n], vec![0i64; n]);
    let delay = |o: Operand, d: &[i64]| match o {
        Operand::Node(k) => d[k],
        _ => 0,
    };
    for k in 0..n {
        let node = &nodes[k];
        let arity = match node.kind {
            Kind::Load | Kind::Return(_) => 0,
            Kind::Not => 1,
            _ => 2,
        };
        if arity == 0 {
            continue;
        }
        let ops = &node.operands[..arity];
        let lo = ops.iter().map(|&o| delay(o, &bpd)).min().unwrap_or(0);
        let hi = ops.iter().map(|&o| delay(o, &wpd)).max().unwrap_or(0);
        let (lb, ub) = (i64::from(node.lb), i64::from(node.ub));
        (bpd[k], wpd[k]) = match node.kind {
            Kind::Until | Kind::Release => (lo + lb, hi + ub),
            Kind::Since | Kind::Trigger => (lo - lb, hi - lb),
            _ => (lo, hi),
        };
    }
    let mut sibling_wpd = vec![0i64; n];
    for node in nodes.iter() {
        if matches!(node.kind, Kind::Load | Kind::Return(_) | Kind::Not) {
            continue;
        }
        for (i, &o) in node.operands.iter().enumerate() {
            if let Operand::Node(k) = o {
                let other = delay(node.operands[1 - i], &wpd);
                sibling_wpd[k] = sibling_wpd[k].max(other);
            }
        }
    }
    for (k, node) in nodes.iter_mut().enumerate() {
        if !matches!(node.kind, Kind::Return(_)) {
            node.size = ((sibling_wpd[k] - bpd[k]).max(0) + 1) as usize;
        }
    }
}

/// A node in a line: its operator, bounds and operands (`--explain`).
pub fn describe(n: &Node, program: &Program) -> String {
    let operand = |o: Operand| match o {
        Operand::Node(k) => format!("n{k}"),
        Operand::Const(b) => b.to_string(),
        Operand::Atom(a) => format!("atom {a} ({})", atom_text(&program.atoms[a])),
    };
    let [a, b] = n.operands;
    match n.kind {
        Kind::Load => format!("load {}", operand(a)),
        Kind::Not => format!("not {}", operand(a)),
        Kind::And => format!("{} and {}", operand(a), operand(b)),
        Kind::Or => format!("{} or {}", operand(a), operand(b)),
        Kind::Equiv => format!("{} <-> {}", operand(a), operand(b)),
        Kind::Until => format!("{} U[{},{}] {}", operand(a), n.lb, n.ub, operand(b)),
        Kind::Release => format!("{} R[{},{}] {}", operand(a), n.lb, n.ub, operand(b)),
        Kind::Since => format!("{} S[{},{}] {}", operand(a), n.lb, n.ub, operand(b)),
        Kind::Trigger => format!("{} T[{},{}] {}", operand(a), n.lb, n.ub, operand(b)),
        Kind::Return(f) => {
            let label = program.labels[f]
                .as_deref()
                .map_or(String::new(), |l| format!(" {l}"));
            format!("formula {f}{label}: {}", operand(a))
        }
    }
}

/// An atom's expression, briefly.
fn atom_text(e: &Expr) -> String {
    match e {
        Expr::Signal(k) => format!("signal {k}"),
        Expr::Tau => "TAU".to_string(),
        Expr::Int(i) => i.to_string(),
        Expr::Float(f) => f.to_string(),
        Expr::Bool(b) => b.to_string(),
        Expr::Binary(op, a, b) => format!("({} {op:?} {})", atom_text(a), atom_text(b)),
        other => format!("{other:?}"),
    }
}
