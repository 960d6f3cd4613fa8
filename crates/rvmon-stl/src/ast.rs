//! A parsed STL formula: its nodes in an arena, every node after its operands (so that one
//! pass in order evaluates it, whatever its depth), and the signals it reads.

/// An operand: the index of a node in [`Formula::nodes`].
pub type NodeId = usize;

/// A window in samples, both ends included: `[a, b]`, or `None` for an unbounded operator.
pub type Window = Option<(u64, u64)>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fun {
    Abs,
    Sqrt,
    Exp,
}

/// Comparisons, with rtamt's robustness: `>`/`>=` is `l - r`, `<`/`<=` is `r - l`, `==` is
/// `-|l - r|`, `!==` is `|l - r|`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Greater,
    Less,
    Equal,
    NotEqual,
}

/// Binary connectives: `and` is min, `or` max, `implies` max(-l, r), `iff` -|l - r|, `xor`
/// |l - r| (rtamt's encodings, not the min/max ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connective {
    And,
    Or,
    Implies,
    Iff,
    Xor,
}

/// The unary temporal operators over a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window1 {
    Always,
    Eventually,
    Historically,
    Once,
}

/// One-sample shifts: `next`/`prev` are +inf past the ends of the trace, the strong forms -inf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    Next,
    Prev,
    StrongNext,
    StrongPrev,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A signal, by its index in [`Formula::signals`].
    Signal(usize),
    Const(f64),
    Arith(Arith, NodeId, NodeId),
    Fun(Fun, NodeId),
    Pow(NodeId, NodeId),
    Cmp(Cmp, NodeId, NodeId),
    Not(NodeId),
    Connective(Connective, NodeId, NodeId),
    Temporal(Window1, Window, NodeId),
    Until(Window, NodeId, NodeId),
    Since(Window, NodeId, NodeId),
    Shift(Shift, NodeId),
    Rise(NodeId),
    Fall(NodeId),
}

/// A formula: `nodes[root]` is its value; every node comes after its operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub nodes: Vec<Node>,
    pub root: NodeId,
    /// The signals it reads, in order of first appearance.
    pub signals: Vec<String>,
}

impl Formula {
    /// How many samples after a time point its value may read (the future horizon), `None`
    /// when an unbounded future operator reads to the end of the trace.
    pub fn horizon(&self) -> Option<u64> {
        let mut h: Vec<Option<u64>> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let of = |c: NodeId| h[c];
            let both = |a: NodeId, b: NodeId| Some(of(a)?.max(of(b)?));
            let v = match *node {
                Node::Signal(_) | Node::Const(_) => Some(0),
                Node::Fun(_, c) | Node::Not(c) | Node::Rise(c) | Node::Fall(c) => of(c),
                Node::Arith(_, a, b)
                | Node::Pow(a, b)
                | Node::Cmp(_, a, b)
                | Node::Connective(_, a, b) => both(a, b),
                Node::Temporal(Window1::Always | Window1::Eventually, w, c) => Some(of(c)? + w?.1),
                Node::Temporal(_, _, c) => of(c),
                Node::Until(w, a, b) => Some(both(a, b)? + w?.1),
                Node::Since(_, a, b) => both(a, b),
                Node::Shift(Shift::Next | Shift::StrongNext, c) => Some(of(c)? + 1),
                Node::Shift(_, c) => of(c),
            };
            h.push(v);
        }
        h[self.root]
    }
}
