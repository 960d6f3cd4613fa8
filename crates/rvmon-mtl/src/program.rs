//! Compilation of a propositional formula into a flat program: a list of operator nodes in
//! post-order (children before parents), with the sugar MonPoly also removes (`IMPLIES`,
//! `EQUIV`, `PAST_ALWAYS`, `ALWAYS`, `ONCE`, `EVENTUALLY`, `LET`) rewritten away so that the
//! engines implement only eight operators.

use rvmon_core::{Error, Interner, Sym, TimePoint};
use rvmon_logic::reference::eval_ground_cmp;
use rvmon_logic::{BinaryTemporal, BoolOp, Formula, FormulaKind, UnaryTemporal};

pub use rvmon_logic::ops::{Op, Window};

/// A compiled propositional formula.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Program {
    /// Nodes in post-order; the last one is the root.
    pub ops: Vec<Op>,
    /// The event names whose presence makes each proposition true.
    pub props: Vec<Sym>,
    pub prop_names: Vec<String>,
    /// Proposition index of each event-name symbol (`u32::MAX`: not in the formula), so that
    /// loading a time point costs one table lookup per event.
    prop_of_sym: Vec<u32>,
}

impl Program {
    /// Sets `holds[p]` for each proposition `p` that has an event in `tp`.
    #[inline]
    pub fn load_holds(&self, tp: &TimePoint, holds: &mut [bool]) {
        holds.iter_mut().for_each(|h| *h = false);
        for e in &tp.events {
            if let Some(&p) = self.prop_of_sym.get(e.name.0 as usize) {
                if p != u32::MAX {
                    holds[p as usize] = true;
                }
            }
        }
    }

    /// True when only past operators occur: every verdict is decided at its own time point.
    pub fn is_past_only(&self) -> bool {
        !self.has_future()
    }

    pub fn root(&self) -> usize {
        self.ops.len() - 1
    }

    /// True when some operator looks into the future (the program needs a closing time point
    /// at the end of a finite trace to decide its last verdicts).
    pub fn has_future(&self) -> bool {
        self.ops
            .iter()
            .any(|o| matches!(o, Op::Next(..) | Op::Until(..)))
    }

    /// True when some future operator has no upper bound: verdicts may stay `?` forever.
    pub fn has_unbounded_future(&self) -> bool {
        self.ops
            .iter()
            .any(|o| matches!(o, Op::Until(w, _, _) if w.hi.is_none()))
    }

    /// Compiles `f`; `interner` maps proposition names to the trace's event-name symbols.
    /// `file`/`text` locate errors.
    pub fn compile(
        f: &Formula,
        interner: &mut Interner,
        file: &str,
        text: &str,
    ) -> Result<Program, Error> {
        let mut c = Compiler {
            ops: Vec::new(),
            props: Vec::new(),
            prop_names: Vec::new(),
            interner,
            file,
            text,
            lets: Vec::new(),
        };
        c.compile(f)?;
        let max_sym = c.props.iter().map(|s| s.0 as usize + 1).max().unwrap_or(0);
        let mut prop_of_sym = vec![u32::MAX; max_sym];
        for (p, s) in c.props.iter().enumerate() {
            prop_of_sym[s.0 as usize] = p as u32;
        }
        Ok(Program {
            ops: c.ops,
            props: c.props,
            prop_names: c.prop_names,
            prop_of_sym,
        })
    }
}

struct Compiler<'a, 'f> {
    ops: Vec<Op>,
    props: Vec<Sym>,
    prop_names: Vec<String>,
    interner: &'a mut Interner,
    file: &'a str,
    text: &'a str,
    /// LET definitions in scope: name, definition, and how many definitions were in scope
    /// where it was defined (a definition sees only those).
    lets: Vec<(String, &'f Formula, usize)>,
}

impl<'f> Compiler<'_, 'f> {
    fn push(&mut self, op: Op) -> usize {
        self.ops.push(op);
        self.ops.len() - 1
    }

    fn not(&mut self, c: usize) -> usize {
        self.push(Op::Not(c))
    }

    fn error(&self, f: &Formula, msg: String) -> Error {
        Error::at_offset(self.file, self.text, f.span.start, msg)
    }

    fn compile(&mut self, f: &'f Formula) -> Result<usize, Error> {
        Ok(match &f.kind {
            FormulaKind::Bool(b) => self.push(Op::Const(*b)),
            FormulaKind::Cmp { op, lhs, rhs } => {
                let v = eval_ground_cmp(*op, lhs, rhs).map_err(|e| self.error(f, e))?;
                self.push(Op::Const(v))
            }
            FormulaKind::Pred { name, args } => {
                if !args.is_empty() {
                    return Err(self.error(f, "first-order formulas are not supported yet".into()));
                }
                if let Some(pos) = self.lets.iter().rposition(|(n, _, _)| n == name) {
                    let (_, def, scope) = self.lets[pos];
                    let saved = std::mem::take(&mut self.lets);
                    self.lets = saved[..scope].to_vec();
                    let r = self.compile(def);
                    self.lets = saved;
                    return r;
                }
                let sym = self.interner.intern(name);
                let idx = match self.props.iter().position(|&s| s == sym) {
                    Some(i) => i,
                    None => {
                        self.props.push(sym);
                        self.prop_names.push(name.clone());
                        self.props.len() - 1
                    }
                };
                self.push(Op::Atom(idx))
            }
            FormulaKind::Not(g) => {
                let c = self.compile(g)?;
                self.not(c)
            }
            FormulaKind::Bool2 { op, lhs, rhs } => {
                let l = self.compile(lhs)?;
                let r = self.compile(rhs)?;
                match op {
                    BoolOp::And => self.push(Op::And(l, r)),
                    BoolOp::Or => self.push(Op::Or(l, r)),
                    BoolOp::Implies => {
                        let nl = self.not(l);
                        self.push(Op::Or(nl, r))
                    }
                    BoolOp::Equiv => {
                        // (l AND r) OR (NOT l AND NOT r), with each side compiled once more so
                        // that every node keeps a single parent.
                        let both = self.push(Op::And(l, r));
                        let l2 = self.compile(lhs)?;
                        let r2 = self.compile(rhs)?;
                        let nl = self.not(l2);
                        let nr = self.not(r2);
                        let neither = self.push(Op::And(nl, nr));
                        self.push(Op::Or(both, neither))
                    }
                }
            }
            FormulaKind::Quant { .. } | FormulaKind::Agg { .. } | FormulaKind::StrRel { .. } => {
                return Err(self.error(f, "first-order formulas are not supported yet".into()))
            }
            FormulaKind::Let {
                name,
                params,
                def,
                body,
            } => {
                if !params.is_empty() {
                    return Err(self.error(f, "first-order formulas are not supported yet".into()));
                }
                let scope = self.lets.len();
                self.lets.push((name.clone(), def, scope));
                let r = self.compile(body);
                self.lets.pop();
                r?
            }
            FormulaKind::Unary { op, interval, body } => {
                let w = Window::of(interval);
                match op {
                    UnaryTemporal::Previous => {
                        let c = self.compile(body)?;
                        self.push(Op::Prev(w, c))
                    }
                    UnaryTemporal::Next => {
                        let c = self.compile(body)?;
                        self.push(Op::Next(w, c))
                    }
                    UnaryTemporal::Once | UnaryTemporal::Eventually => {
                        let t = self.push(Op::Const(true));
                        let c = self.compile(body)?;
                        self.push(if *op == UnaryTemporal::Once {
                            Op::Since(w, t, c)
                        } else {
                            Op::Until(w, t, c)
                        })
                    }
                    UnaryTemporal::PastAlways | UnaryTemporal::Always => {
                        let t = self.push(Op::Const(true));
                        let c = self.compile(body)?;
                        let nc = self.not(c);
                        let inner = self.push(if *op == UnaryTemporal::PastAlways {
                            Op::Since(w, t, nc)
                        } else {
                            Op::Until(w, t, nc)
                        });
                        self.not(inner)
                    }
                }
            }
            FormulaKind::Binary {
                op,
                interval,
                lhs,
                rhs,
            } => {
                let w = Window::of(interval);
                let l = self.compile(lhs)?;
                let r = self.compile(rhs)?;
                self.push(match op {
                    BinaryTemporal::Since => Op::Since(w, l, r),
                    BinaryTemporal::Until => Op::Until(w, l, r),
                })
            }
        })
    }
}
