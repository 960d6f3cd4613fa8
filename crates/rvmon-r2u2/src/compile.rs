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

use rvmon_core::Error;

use crate::engine::{Kind, Node, Operand, Time};
use crate::graph::{Graph, K};
use crate::syntax::{Expr, Op, Spec, Temporal};

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

pub fn compile(spec: &Spec, options: Options) -> Result<Program, Error> {
    let mut g = Graph::default();
    let mut atoms: Vec<Expr> = Vec::new();
    let mut sets = [Vec::new(), Vec::new()];
    for f in &spec.formulas {
        let root = build(&f.expr, &mut g, &mut atoms);
        let formula = g.make(K::Formula(f.id), vec![root]);
        sets[usize::from(f.past)].push(formula);
    }
    let [ft, pt] = sets.map(|formulas| g.make(K::Set, formulas));
    for set in [ft, pt] {
        if options.rewrite {
            g.postorder(set, rewrite);
        }
        g.postorder(set, core);
    }
    if options.cse {
        for set in [ft, pt] {
            let mut canonical: HashMap<(K, Vec<usize>), usize> = HashMap::new();
            g.postorder(set, |g, e| {
                let key = (g.objs[e].kind, g.objs[e].children.clone());
                match canonical.get(&key) {
                    Some(&c) => g.replace(e, c),
                    None => {
                        canonical.insert(key, e);
                    }
                }
            });
        }
    }
    let nodes = assemble(&mut g, [ft, pt])?;
    Ok(Program {
        nodes,
        atoms,
        labels: spec.formulas.iter().map(|f| f.label.clone()).collect(),
    })
}

/// The objects of formula `e`, its non-temporal-logic parts as atoms (added to `atoms`,
/// each once).
fn build(e: &Expr, g: &mut Graph, atoms: &mut Vec<Expr>) -> usize {
    match e {
        Expr::Bool(b) => g.make(K::Const(*b), vec![]),
        Expr::Not(a) => {
            let a = build(a, g, atoms);
            g.make(K::Not, vec![a])
        }
        Expr::Binary(op @ (Op::And | Op::Or | Op::Implies | Op::Iff | Op::Xor), a, b) => {
            let kind = match op {
                Op::And => K::And,
                Op::Or => K::Or,
                Op::Implies => K::Implies,
                Op::Iff => K::Iff,
                _ => K::Xor,
            };
            let (a, b) = (build(a, g, atoms), build(b, g, atoms));
            g.make(kind, vec![a, b])
        }
        // (C2PO's rewrite of a comparison with a Boolean constant: `p == true` is `p`.)
        Expr::Binary(Op::Eq, a, b) if matches!(**b, Expr::Bool(_)) && is_logic(a) => {
            build(a, g, atoms)
        }
        Expr::Binary(Op::Eq, a, b) if matches!(**a, Expr::Bool(_)) && is_logic(b) => {
            build(b, g, atoms)
        }
        Expr::Unary(t @ (Temporal::Historically | Temporal::Once), lb, ub, a) => {
            let a = build(a, g, atoms);
            g.make_parsed_past(*t, *lb, *ub, a)
        }
        Expr::Unary(t, lb, ub, a) => {
            let a = build(a, g, atoms);
            g.make(K::Tl(*t, *lb, *ub), vec![a])
        }
        Expr::Until(t, lb, ub, a, b) => {
            let (a, b) = (build(a, g, atoms), build(b, g, atoms));
            g.make(K::Tl(*t, *lb, *ub), vec![a, b])
        }
        other => {
            let k = atoms.iter().position(|a| a == other).unwrap_or_else(|| {
                atoms.push(other.clone());
                atoms.len() - 1
            });
            g.make(K::Atom(k), vec![])
        }
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

/// The interval and operand of a unary temporal object of kind `t`, if `e` is one.
fn unary(g: &Graph, e: usize, t: Temporal) -> Option<(Time, Time, usize)> {
    match g.objs[e].kind {
        K::Tl(k, lb, ub) if k == t && g.objs[e].children.len() == 1 => {
            Some((lb, ub, g.objs[e].children[0]))
        }
        _ => None,
    }
}

/// C2PO's rewrite rules at `e` (its operands already rewritten); what a rule makes is not
/// visited again (but `e`'s parent sees it).
fn rewrite(g: &mut Graph, e: usize) {
    use Temporal::{Future as Fu, Global as Gl};
    let kids = g.objs[e].children.clone();
    let new = match g.objs[e].kind {
        K::Not => {
            let a = kids[0];
            match g.objs[a].kind {
                K::Const(b) => Some(g.make(K::Const(!b), vec![])),
                K::Not => Some(g.objs[a].children[0]),
                K::Tl(t @ (Gl | Fu), lb, ub) => {
                    let p = g.objs[a].children[0];
                    let dual = if t == Gl { Fu } else { Gl };
                    (g.objs[p].kind == K::Not).then(|| {
                        let q = g.objs[p].children[0];
                        g.make(K::Tl(dual, lb, ub), vec![q])
                    })
                }
                _ => None,
            }
        }
        K::Tl(op @ (Gl | Fu), lb, ub) => nested(g, op, lb, ub, kids[0]),
        K::And => {
            let (a, b) = (kids[0], kids[1]);
            if let (Some(x), Some(y)) = (unary(g, a, Gl), unary(g, b, Gl)) {
                merge(g, Gl, x, y)
            } else if let (Some(x), Some(y)) = (unary(g, a, Fu), unary(g, b, Fu)) {
                narrower(g, Fu, x, y)
            } else {
                shared_until(g, a, b)
            }
        }
        K::Or => {
            let (a, b) = (kids[0], kids[1]);
            if let (Some(x), Some(y)) = (unary(g, a, Fu), unary(g, b, Fu)) {
                merge(g, Fu, x, y)
            } else if let (Some(x), Some(y)) = (unary(g, a, Gl), unary(g, b, Gl)) {
                narrower(g, Gl, x, y)
            } else {
                None
            }
        }
        _ => None,
    };
    if let Some(new) = new {
        g.replace(e, new);
    }
}

/// `G`/`F` of a constant, of `G`, or of `F`; and `[0,0]` (C2PO tests the rules in turn, a
/// later one overriding an earlier).
fn nested(g: &mut Graph, op: Temporal, lb: Time, ub: Time, p: usize) -> Option<usize> {
    use Temporal::{Future as Fu, Global as Gl};
    let mut new = (lb == 0 && ub == 0).then_some(p);
    let other = if op == Gl { Fu } else { Gl };
    match g.objs[p].kind {
        // G[l,u] true = true; F[l,u] false = false (not the converse: a trace too short for
        // the window satisfies G[l,u] false and not F[l,u] true).
        K::Const(b) if b == (op == Gl) => new = Some(g.make(K::Const(b), vec![])),
        K::Tl(o, l2, u2) if o == op && g.objs[p].children.len() == 1 => {
            let q = g.objs[p].children[0];
            new = Some(g.make(
                K::Tl(op, lb.saturating_add(l2), ub.saturating_add(u2)),
                vec![q],
            ));
        }
        K::Tl(o, l2, u2) if o == other && g.objs[p].children.len() == 1 => {
            let q = g.objs[p].children[0];
            let (l, u) = (lb.saturating_add(l2), ub.saturating_add(u2));
            if lb == ub {
                new = Some(g.make(K::Tl(other, l, u), vec![q]));
            } else if l2 == u2 {
                new = Some(g.make(K::Tl(op, l, u), vec![q]));
            }
        }
        _ => {}
    }
    new
}

/// `G..p && G..q` (and `F..p || F..q`): one window when `p` and `q` are the same formula and
/// the windows meet or overlap; otherwise the common part of the windows taken out.
fn merge(
    g: &mut Graph,
    op: Temporal,
    (l1, u1, p): (Time, Time, usize),
    (l2, u2, q): (Time, Time, usize),
) -> Option<usize> {
    if g.same(p, q) {
        let (lb, ub) = if l1 <= l2 && u1 >= u2 {
            (l1, u1)
        } else if l2 <= l1 && u2 >= u1 {
            (l2, u2)
        } else if l1 <= l2 && l2 <= u1.saturating_add(1) {
            (l1, u1.max(u2))
        } else if l2 <= l1 && l1 <= u2.saturating_add(1) {
            (l2, u1.max(u2))
        } else {
            return None;
        };
        return Some(g.make(K::Tl(op, lb, ub), vec![p]));
    }
    let l3 = l1.min(l2);
    let u3 = l3 + (u1 - l1).min(u2 - l2);
    let left = g.make(K::Tl(op, l1 - l3, u1 - u3), vec![p]);
    let right = g.make(K::Tl(op, l2 - l3, u2 - u3), vec![q]);
    let inner = g.make(
        if op == Temporal::Global {
            K::And
        } else {
            K::Or
        },
        vec![left, right],
    );
    Some(g.make(K::Tl(op, l3, u3), vec![inner]))
}

/// `F[l1,u1]p && F[l2,u2]p` (and `G..p || G..p`): the inner window, when one holds the other.
fn narrower(
    g: &mut Graph,
    op: Temporal,
    (l1, u1, p): (Time, Time, usize),
    (l2, u2, q): (Time, Time, usize),
) -> Option<usize> {
    if !g.same(p, q) {
        return None;
    }
    let (lb, ub) = if l1 <= l2 && u1 >= u2 {
        (l2, u2)
    } else if l2 <= l1 && u2 >= u1 {
        (l1, u1)
    } else {
        return None;
    };
    Some(g.make(K::Tl(op, lb, ub), vec![p]))
}

/// `(p U[l,u1] q) && (r U[l,u2] q) = (p && r) U[l,min(u1,u2)] q` (C2PO applies it, though
/// it does not hold in general).
fn shared_until(g: &mut Graph, a: usize, b: usize) -> Option<usize> {
    let (K::Tl(Temporal::Until, l1, u1), K::Tl(Temporal::Until, l2, u2)) =
        (g.objs[a].kind, g.objs[b].kind)
    else {
        return None;
    };
    let (p, q) = (g.objs[a].children[0], g.objs[a].children[1]);
    let (r, s) = (g.objs[b].children[0], g.objs[b].children[1]);
    if l1 != l2 || !g.same(q, s) {
        return None;
    }
    let left = g.make(K::And, vec![p, r]);
    Some(g.make(K::Tl(Temporal::Until, l1, u1.min(u2)), vec![left, q]))
}

/// The core operators only (C2PO's `remove_extended_operators`).
fn core(g: &mut Graph, e: usize) {
    let kids = g.objs[e].children.clone();
    let new = match g.objs[e].kind {
        K::Xor => {
            let iff = g.make(K::Iff, kids);
            g.make(K::Not, vec![iff])
        }
        K::Implies => {
            let not = g.make(K::Not, vec![kids[0]]);
            g.make(K::Or, vec![not, kids[1]])
        }
        K::Tl(op, lb, ub) if kids.len() == 1 => {
            let (binary, constant) = match op {
                Temporal::Future => (Temporal::Until, true),
                Temporal::Global => (Temporal::Release, false),
                Temporal::Once => (Temporal::Since, true),
                _ => (Temporal::Trigger, false),
            };
            let c = g.make(K::Const(constant), vec![]);
            g.make(K::Tl(binary, lb, ub), vec![c, kids[0]])
        }
        _ => return,
    };
    g.replace(e, new);
}

/// The engine's nodes: the future-time set's objects in post order, then the past-time
/// set's; each queue sized `max(0, max over its siblings' wpd − its bpd) + 1`.
fn assemble(g: &mut Graph, sets: [usize; 2]) -> Result<Vec<Node>, Error> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut node_of: HashMap<usize, usize> = HashMap::new();
    let mut failed = None;
    for set in sets {
        g.postorder(set, |g, e| {
            let obj = &g.objs[e];
            let operand = |c: usize| match g.objs[c].kind {
                K::Const(b) => Operand::Const(b),
                _ => Operand::Node(node_of[&c]),
            };
            let ops: Vec<Operand> = obj.children.iter().map(|&c| operand(c)).collect();
            let (kind, lb, ub) = match obj.kind {
                K::Set | K::Const(_) => return,
                K::Atom(a) => {
                    let node = Node {
                        kind: Kind::Load,
                        operands: [Operand::Atom(a), Operand::Const(false)],
                        lb: 0,
                        ub: 0,
                        size: queue_size(g, e),
                    };
                    node_of.insert(e, nodes.len());
                    nodes.push(node);
                    return;
                }
                K::Formula(f) => {
                    if let Operand::Const(b) = ops[0] {
                        failed.get_or_insert(Error::msg(format!(
                            "formula {f} is the constant `{b}` (after C2PO's rewrites), which \
                             R2U2 does not monitor"
                        )));
                    }
                    (Kind::Return(f), 0, 0)
                }
                K::Not => (Kind::Not, 0, 0),
                K::And => (Kind::And, 0, 0),
                K::Or => (Kind::Or, 0, 0),
                K::Iff => (Kind::Equiv, 0, 0),
                K::Tl(t, lb, ub) => {
                    let kind = match t {
                        Temporal::Until => Kind::Until,
                        Temporal::Release => Kind::Release,
                        Temporal::Since => Kind::Since,
                        _ => Kind::Trigger,
                    };
                    (kind, lb, ub)
                }
                K::Implies | K::Xor => unreachable!("core operators only"),
            };
            let size = match kind {
                Kind::Return(_) => 1,
                _ => queue_size(g, e),
            };
            node_of.insert(e, nodes.len());
            nodes.push(Node {
                kind,
                operands: [ops[0], ops.get(1).copied().unwrap_or(Operand::Const(false))],
                lb,
                ub,
                size,
            });
        });
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(nodes),
    }
}

/// C2PO's queue size of object `e`.
fn queue_size(g: &Graph, e: usize) -> usize {
    let siblings = g
        .siblings(e)
        .iter()
        .map(|&s| g.objs[s].wpd)
        .max()
        .unwrap_or(0)
        .max(0);
    ((siblings - g.objs[e].bpd).max(0) + 1) as usize
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
