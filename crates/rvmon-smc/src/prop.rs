//! The properties: reachability in PRISM's style over the chain's labels.
//!
//! ```text
//! prop  := "X" state | "F" bound? state | "G" bound? state | state "U" bound? state
//! bound := "<=" number
//! state := "true" | "false" | name | "!" state | state "&" state | state "|" state | "(" state ")"
//! ```
//! A name holds in a state whose label is that name or has it among its `&`-joined
//! propositions. The run starts in the initial state (position 0).

/// A state formula.
#[derive(Clone, Debug, PartialEq)]
pub enum State {
    True,
    Atom(String),
    Not(Box<State>),
    And(Box<State>, Box<State>),
    Or(Box<State>, Box<State>),
}

/// A path property: `left U<=bound right` (`F` is `true U`), its negation (`G φ` is
/// `!(F !φ)`), or `X right`.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    Until {
        left: State,
        right: State,
        bound: Option<u64>,
        negated: bool,
    },
    Next(State),
}

impl State {
    /// The propositions it reads (paper 28's support of a property).
    pub fn support(&self, out: &mut Vec<String>) {
        match self {
            State::True => {}
            State::Atom(p) => {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
            State::Not(a) => a.support(out),
            State::And(a, b) | State::Or(a, b) => {
                a.support(out);
                b.support(out);
            }
        }
    }

    pub fn holds(&self, chain: &crate::chain::Chain, s: usize) -> bool {
        match self {
            State::True => true,
            State::Atom(p) => chain.holds(s, p),
            State::Not(a) => !a.holds(chain, s),
            State::And(a, b) => a.holds(chain, s) && b.holds(chain, s),
            State::Or(a, b) => a.holds(chain, s) || b.holds(chain, s),
        }
    }
}

impl Prop {
    /// The propositions the property reads (`V_φ`, paper 28 Def. 4).
    pub fn support(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Prop::Next(s) => s.support(&mut out),
            Prop::Until { left, right, .. } => {
                left.support(&mut out);
                right.support(&mut out);
            }
        }
        out
    }
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn skip(&mut self) {
        // (By characters: white space may be more than one byte.)
        while let Some(c) = self.text[self.at..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
        {
            self.at += c.len_utf8();
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip();
        if self.text[self.at..].starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn error(&self, what: &str) -> String {
        format!("column {}: expected {what}", self.at + 1)
    }

    fn name(&mut self) -> Option<String> {
        self.skip();
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        (len > 0).then(|| {
            self.at += len;
            rest[..len].to_string()
        })
    }

    fn bound(&mut self) -> Result<Option<u64>, String> {
        if !self.eat("<=") {
            return Ok(None);
        }
        self.skip();
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n = rest[..len]
            .parse()
            .map_err(|_| self.error("a whole number of steps after `<=`"))?;
        self.at += len;
        Ok(Some(n))
    }

    fn state(&mut self) -> Result<State, String> {
        let mut left = self.conjunction()?;
        while self.eat("|") {
            left = State::Or(Box::new(left), Box::new(self.conjunction()?));
        }
        Ok(left)
    }

    fn conjunction(&mut self) -> Result<State, String> {
        let mut left = self.unary()?;
        while self.eat("&") {
            left = State::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<State, String> {
        if self.eat("!") {
            return Ok(State::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let s = self.state()?;
            if !self.eat(")") {
                return Err(self.error("`)`"));
            }
            return Ok(s);
        }
        match self.name().as_deref() {
            Some("true") => Ok(State::True),
            Some("false") => Ok(State::Not(Box::new(State::True))),
            Some("U" | "F" | "G" | "X") | None => Err(self.error("a proposition, `!`, `(`")),
            Some(n) => Ok(State::Atom(n.to_string())),
        }
    }
}

/// Parses a property.
pub fn parse(text: &str) -> Result<Prop, String> {
    let mut p = Parser { text, at: 0 };
    let keyword = |p: &mut Parser, k: &str| {
        p.skip();
        let rest = &p.text[p.at..];
        let is = rest.starts_with(k)
            && !rest[k.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        if is {
            p.at += k.len();
        }
        is
    };
    let prop = if keyword(&mut p, "X") {
        Prop::Next(p.state()?)
    } else if keyword(&mut p, "F") {
        let bound = p.bound()?;
        Prop::Until {
            left: State::True,
            right: p.state()?,
            bound,
            negated: false,
        }
    } else if keyword(&mut p, "G") {
        let bound = p.bound()?;
        Prop::Until {
            left: State::True,
            right: State::Not(Box::new(p.state()?)),
            bound,
            negated: true,
        }
    } else {
        let left = p.state()?;
        if !keyword(&mut p, "U") {
            return Err(p.error("`U` (or a property starting with `X`, `F`, `G`)"));
        }
        let bound = p.bound()?;
        Prop::Until {
            left,
            right: p.state()?,
            bound,
            negated: false,
        }
    };
    p.skip();
    if p.at != text.len() {
        return Err(p.error("the end of the property"));
    }
    Ok(prop)
}
