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
        self.delays()[self.root]
    }

    /// Per node, how many samples after a sample its value there is known: its operands'
    /// largest delay plus how far forward it reads (`None` past an unbounded future
    /// operator, known only at the end of the trace). The online engine's schedule.
    pub fn delays(&self) -> Vec<Option<u64>> {
        let mut delay: Vec<Option<u64>> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let forward = node.forward();
            let mut d = Some(0u64);
            for c in node.operands() {
                d = d.zip(delay[c]).map(|(d, c)| d.max(c));
            }
            delay.push(d.zip(forward).map(|(d, w)| d.saturating_add(w)));
        }
        delay
    }
}

impl Node {
    /// The node's operands, in order (none, one or two).
    pub fn operands(&self) -> impl Iterator<Item = NodeId> {
        self.operand_pair().into_iter().flatten()
    }

    /// How far forward of a sample it reads its operands, in samples (`None`: to the end of
    /// the trace).
    pub fn forward(&self) -> Option<u64> {
        match *self {
            Node::Temporal(Window1::Always | Window1::Eventually, w, _) | Node::Until(w, _, _) => {
                w.map(|w| w.1)
            }
            Node::Shift(Shift::Next | Shift::StrongNext, _) => Some(1),
            _ => Some(0),
        }
    }

    /// Its operands, first and second (`None` where it has fewer).
    pub fn operand_pair(&self) -> [Option<NodeId>; 2] {
        match *self {
            Node::Signal(_) | Node::Const(_) => [None, None],
            Node::Fun(_, c)
            | Node::Not(c)
            | Node::Temporal(_, _, c)
            | Node::Shift(_, c)
            | Node::Rise(c)
            | Node::Fall(c) => [Some(c), None],
            Node::Arith(_, l, r)
            | Node::Pow(l, r)
            | Node::Cmp(_, l, r)
            | Node::Connective(_, l, r)
            | Node::Until(_, l, r)
            | Node::Since(_, l, r) => [Some(l), Some(r)],
        }
    }

    /// The precedence level of a binary operator, as in rtamt's grammar (tighter first; each
    /// level associates to the left), `None` for the others.
    fn level(&self) -> Option<u8> {
        Some(match self {
            Node::Arith(Arith::Mul, ..) => 2,
            Node::Arith(Arith::Div, ..) => 3,
            Node::Arith(Arith::Add, ..) => 4,
            Node::Arith(Arith::Sub, ..) => 5,
            Node::Cmp(..) => 6,
            Node::Until(..) => 8,
            Node::Since(..) => 10,
            Node::Connective(Connective::And, ..) => 11,
            Node::Connective(Connective::Or, ..) => 12,
            Node::Connective(Connective::Implies, ..) => 13,
            Node::Connective(Connective::Iff, ..) => 14,
            Node::Connective(Connective::Xor, ..) => 15,
            _ => return None,
        })
    }

    /// Whether the node is written without parentheses as an operand: a signal, a number,
    /// or a function call.
    fn atomic(&self) -> bool {
        matches!(
            self,
            Node::Signal(_)
                | Node::Const(_)
                | Node::Fun(..)
                | Node::Pow(..)
                | Node::Rise(_)
                | Node::Fall(_)
        )
    }
}

impl Formula {
    /// The subformula at `id` as a formula of its own (the report draws each subformula's
    /// robustness with a monitor of it). It keeps every signal of `self`, in the same order,
    /// so that the samples fed to `self`'s monitor feed its monitor too.
    pub fn subformula(&self, id: NodeId) -> Formula {
        let mut kept = vec![false; id + 1];
        kept[id] = true;
        // Operands come before their node: one pass down from `id` marks all it reads.
        for i in (0..=id).rev() {
            if kept[i] {
                for c in self.nodes[i].operands() {
                    kept[c] = true;
                }
            }
        }
        let mut new_id = vec![usize::MAX; id + 1];
        let mut nodes = Vec::new();
        for i in (0..=id).filter(|&i| kept[i]) {
            let m = |c: NodeId| new_id[c];
            let node = match self.nodes[i].clone() {
                n @ (Node::Signal(_) | Node::Const(_)) => n,
                Node::Arith(op, l, r) => Node::Arith(op, m(l), m(r)),
                Node::Fun(f, c) => Node::Fun(f, m(c)),
                Node::Pow(l, r) => Node::Pow(m(l), m(r)),
                Node::Cmp(op, l, r) => Node::Cmp(op, m(l), m(r)),
                Node::Not(c) => Node::Not(m(c)),
                Node::Connective(op, l, r) => Node::Connective(op, m(l), m(r)),
                Node::Temporal(op, w, c) => Node::Temporal(op, w, m(c)),
                Node::Until(w, l, r) => Node::Until(w, m(l), m(r)),
                Node::Since(w, l, r) => Node::Since(w, m(l), m(r)),
                Node::Shift(s, c) => Node::Shift(s, m(c)),
                Node::Rise(c) => Node::Rise(m(c)),
                Node::Fall(c) => Node::Fall(m(c)),
            };
            new_id[i] = nodes.len();
            nodes.push(node);
        }
        Formula {
            root: nodes.len() - 1,
            nodes,
            signals: self.signals.clone(),
        }
    }

    /// The subformula at `id` in rtamt's syntax, every operand that is not a signal, a
    /// number or a call in parentheses (so that it parses back to the same formula; windows
    /// in samples). Written without recursion, in time linear in the subformula's size.
    pub fn text(&self, id: NodeId) -> String {
        enum Item<'a> {
            Node(NodeId),
            /// An operand, in parentheses unless it is atomic.
            Operand(NodeId),
            /// The left operand of a binary operator of a precedence level: without
            /// parentheses also when it is an operator of the same level (they associate to
            /// the left, so a chain of `and`s nests no parentheses).
            LeftOperand(NodeId, u8),
            Str(&'a str),
            Window(Window),
        }
        let mut out = String::new();
        let mut stack = vec![Item::Node(id)];
        while let Some(item) = stack.pop() {
            let id = match item {
                Item::Str(s) => {
                    out.push_str(s);
                    continue;
                }
                Item::Window(Some((a, b))) => {
                    out.push_str(&format!("[{a},{b}]"));
                    continue;
                }
                Item::Window(None) => continue,
                Item::LeftOperand(c, level) if self.nodes[c].level() == Some(level) => c,
                Item::Operand(c) | Item::LeftOperand(c, _) if !self.nodes[c].atomic() => {
                    stack.extend([Item::Str(")"), Item::Node(c), Item::Str("(")]);
                    continue;
                }
                Item::Operand(c) | Item::LeftOperand(c, _) | Item::Node(c) => c,
            };
            // Pushed in reverse: the last pushed is written first.
            let (prefix, window, infix, operands): (&str, Window, &str, _) = match self.nodes[id] {
                Node::Signal(k) => {
                    out.push_str(&self.signals[k]);
                    continue;
                }
                Node::Const(c) => {
                    out.push_str(&const_text(c));
                    continue;
                }
                Node::Arith(op, l, r) => {
                    let op = match op {
                        Arith::Add => " + ",
                        Arith::Sub => " - ",
                        Arith::Mul => " * ",
                        Arith::Div => " / ",
                    };
                    ("", None, op, (l, Some(r)))
                }
                Node::Cmp(op, l, r) => {
                    let op = match op {
                        Cmp::Greater => " > ",
                        Cmp::Less => " < ",
                        Cmp::Equal => " == ",
                        Cmp::NotEqual => " !== ",
                    };
                    ("", None, op, (l, Some(r)))
                }
                Node::Connective(op, l, r) => {
                    let op = match op {
                        Connective::And => " and ",
                        Connective::Or => " or ",
                        Connective::Implies => " implies ",
                        Connective::Iff => " iff ",
                        Connective::Xor => " xor ",
                    };
                    ("", None, op, (l, Some(r)))
                }
                Node::Until(w, l, r) => ("", w, " until", (l, Some(r))),
                Node::Since(w, l, r) => ("", w, " since", (l, Some(r))),
                Node::Pow(l, r) => {
                    let call = [Item::Str(")"), Item::Node(r), Item::Str(", ")];
                    stack.extend(call.into_iter().chain([Item::Node(l), Item::Str("pow(")]));
                    continue;
                }
                Node::Fun(f, c) => {
                    let name = match f {
                        Fun::Abs => "abs",
                        Fun::Sqrt => "sqrt",
                        Fun::Exp => "exp",
                    };
                    (name, None, "", (c, None))
                }
                Node::Not(c) => ("not", None, "", (c, None)),
                Node::Temporal(op, w, c) => {
                    let name = match op {
                        Window1::Always => "always",
                        Window1::Eventually => "eventually",
                        Window1::Historically => "historically",
                        Window1::Once => "once",
                    };
                    (name, w, "", (c, None))
                }
                Node::Shift(s, c) => {
                    let name = match s {
                        Shift::Next => "next",
                        Shift::Prev => "prev",
                        Shift::StrongNext => "s_next",
                        Shift::StrongPrev => "s_prev",
                    };
                    (name, None, "", (c, None))
                }
                Node::Rise(c) => ("rise", None, "", (c, None)),
                Node::Fall(c) => ("fall", None, "", (c, None)),
            };
            match operands {
                // A prefix operator or a call: its operand in parentheses, always.
                (c, None) => stack.extend([
                    Item::Str(")"),
                    Item::Node(c),
                    Item::Str("("),
                    Item::Window(window),
                    Item::Str(prefix),
                ]),
                (l, Some(r)) => stack.extend([
                    Item::Operand(r),
                    Item::Str(" "),
                    Item::Window(window),
                    Item::Str(infix.trim_end()),
                    Item::LeftOperand(l, self.nodes[id].level().unwrap_or(0)),
                ]),
            }
        }
        out
    }
}

/// A number as the formula text writes it: a whole number without a fraction (`-0` for a
/// negative zero, which the robustness tells apart), otherwise Python's `repr`.
fn const_text(c: f64) -> String {
    if c == 0.0 && c.is_sign_negative() {
        "-0".to_string()
    } else if c.fract() == 0.0 && c.abs() < 1e15 {
        format!("{}", c as i64)
    } else {
        crate::number::python_repr(c)
    }
}
