//! What a specification may ask of rvmon before it runs: how deep its syntax nests, and how
//! much memory the numbers it gives may set aside up front.
//!
//! Every pass over a parsed specification (analyses, rewriters, printers, the engines'
//! compilers, and the derived `Clone`, `PartialEq` and `Drop`) recurses on its tree, on the
//! main thread or on a worker thread. Each language bounds the depth of its trees once, when
//! it is parsed, so that none of those passes can overflow a stack: the parser counts its own
//! recursion with a [`Depth`], and [`deeper_than`] checks the tree it built, which long
//! chains (see [`associate`]) and expansions can make deeper than the parser's recursion.
//! The error is the same in every language: `file:line:col: nesting deeper than N`
//! ([`too_deep`]).

use std::fmt;

/// A recursive-descent parser's nesting: one [`Depth::enter`] per level of recursion, one
/// [`Depth::leave`] when the level is done (on errors too: parsers that backtrack go on).
#[derive(Clone, Copy, Debug)]
pub struct Depth {
    now: usize,
    limit: usize,
}

impl Depth {
    pub const fn new(limit: usize) -> Depth {
        Depth { now: 0, limit }
    }

    /// One level deeper; the message of the error to report (at the current position) when
    /// that would pass the limit, in which case the depth is unchanged.
    pub fn enter(&mut self) -> Result<(), String> {
        if self.now >= self.limit {
            return Err(too_deep(self.limit));
        }
        self.now += 1;
        Ok(())
    }

    pub fn leave(&mut self) {
        self.now = self.now.saturating_sub(1);
    }
}

/// The message every language gives for input nested past its limit.
pub fn too_deep(limit: usize) -> String {
    format!("nesting deeper than {limit}")
}

/// The first node, in depth-first order, at a depth greater than `limit` (the root is at
/// depth 1), or `None`. `children` pushes a node's children. It runs without recursion, so
/// it can check trees of any depth.
pub fn deeper_than<N: Copy>(
    root: N,
    limit: usize,
    mut children: impl FnMut(N, &mut Vec<N>),
) -> Option<N> {
    let mut stack = vec![(root, 1usize)];
    let mut below = Vec::new();
    while let Some((node, depth)) = stack.pop() {
        if depth > limit {
            return Some(node);
        }
        children(node, &mut below);
        // Reversed, so that the first child is visited first.
        stack.extend(below.drain(..).rev().map(|c| (c, depth + 1)));
    }
    None
}

/// Chains of this many operands or fewer are built exactly as written (see [`associate`]).
pub const CHAIN_RUN: usize = 64;

/// The tree of the left-associative chain `first op₁ x₁ op₂ x₂ …`, built without recursion
/// on its length and, when it is long, not as deep as it is long.
///
/// A parser's loop builds a chain of `n` operands as a left comb `n` deep, and every later
/// pass would recurse `n` deep on it. Here a chain of at most [`CHAIN_RUN`] operands is that
/// left comb, exactly as before; a longer one is cut into runs of about `CHAIN_RUN` operands,
/// each a left comb as written, and the runs are joined as a balanced tree: depth
/// `CHAIN_RUN + log₂(n / CHAIN_RUN)`. That is the same value only for an associative operator,
/// and only where the regrouping keeps meaning, so a run may start only at an operand for
/// which `may_start_run(op before it, operand)` holds; a chain without such places stays one
/// comb (and the depth limit applies to it). `join(op, left, right)` builds `left op right`;
/// runs are joined with the operator before the right run's first operand.
pub fn associate<T, O: Copy>(
    first: T,
    rest: Vec<(O, T)>,
    may_start_run: impl Fn(O, &T) -> bool,
    mut join: impl FnMut(O, T, T) -> T,
) -> T {
    // Runs, each with the operator before it (`None` for the first).
    let mut runs: Vec<(Option<O>, T)> = Vec::new();
    let (mut lead, mut acc, mut len) = (None, first, 1usize);
    let long = rest.len() >= CHAIN_RUN;
    for (op, x) in rest {
        if long && len >= CHAIN_RUN && may_start_run(op, &x) {
            runs.push((lead, acc));
            (lead, acc, len) = (Some(op), x, 1);
        } else {
            acc = join(op, acc, x);
            len += 1;
        }
    }
    runs.push((lead, acc));
    // Pairwise, left to right, until one is left: operands keep their order.
    while runs.len() > 1 {
        let mut paired = Vec::with_capacity(runs.len().div_ceil(2));
        let mut it = runs.into_iter();
        while let Some((lead, l)) = it.next() {
            paired.push(match it.next() {
                Some((Some(op), r)) => (lead, join(op, l, r)),
                Some((None, _)) => unreachable!("only the first run has no operator before it"),
                None => (lead, l),
            });
        }
        runs = paired;
    }
    runs.pop().expect("a chain has an operand").1
}

/// How much memory a specification may make rvmon set aside for what it asks: the values an
/// offset keeps, a window, a queue. Numbers in a specification are checked against it before
/// anything is allocated, so that `s.offset(by: -100000000)` is an error that says what it
/// would need, not an abort when the allocation fails. `rvmon check --memory-limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    bytes: u64,
}

impl MemoryLimit {
    /// 1 GiB: far more than any specification in rvmon's suites needs, and less than a
    /// machine that runs the monitor beside other work can give without trouble.
    pub const DEFAULT: MemoryLimit = MemoryLimit { bytes: 1 << 30 };

    pub const fn bytes(bytes: u64) -> MemoryLimit {
        MemoryLimit { bytes }
    }

    pub fn get(self) -> u64 {
        self.bytes
    }

    /// `Err` with the message to report when `need` bytes, for `what` (`"the offset -100000000
    /// of `a`"`), are more than the limit.
    pub fn check(self, need: u128, what: impl FnOnce() -> String) -> Result<(), String> {
        if need <= u128::from(self.bytes) {
            return Ok(());
        }
        Err(format!(
            "{} would need {} of memory, more than the memory limit of {} (--memory-limit)",
            what(),
            human_bytes(need),
            human_bytes(u128::from(self.bytes))
        ))
    }
}

impl Default for MemoryLimit {
    fn default() -> Self {
        MemoryLimit::DEFAULT
    }
}

impl fmt::Display for MemoryLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&human_bytes(u128::from(self.bytes)))
    }
}

impl std::str::FromStr for MemoryLimit {
    type Err = String;

    /// A number of bytes with an optional unit: `1073741824`, `512M`, `512MiB`, `2G`, `2GB`
    /// (units are powers of 1024: `K`, `M`, `G`, `T`, optionally followed by `B` or `iB`).
    fn from_str(s: &str) -> Result<MemoryLimit, String> {
        let bad = || {
            format!("`{s}` is not an amount of memory: expected bytes, or a number with K, M, G or T (`512M`, `2G`)")
        };
        let t = s.trim();
        let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let n: u64 = t[..digits].parse().map_err(|_| bad())?;
        let unit = t[digits..].trim();
        let unit = unit
            .strip_suffix("iB")
            .or_else(|| unit.strip_suffix('B'))
            .unwrap_or(unit);
        let shift = match unit.to_ascii_uppercase().as_str() {
            "" => 0,
            "K" => 10,
            "M" => 20,
            "G" => 30,
            "T" => 40,
            _ => return Err(bad()),
        };
        n.checked_mul(1 << shift)
            .map(MemoryLimit::bytes)
            .ok_or_else(bad)
    }
}

/// `1073741824` as `1 GiB`, `1610612736` as `1.5 GiB`, `100` as `100 bytes`.
pub fn human_bytes(n: u128) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut unit = 0;
    let mut scaled = n as f64 / 1024.0;
    while scaled >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    let text = format!("{scaled:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum T {
        Leaf(u32),
        Op(char, Box<T>, Box<T>),
    }

    fn depth(t: &T) -> usize {
        match t {
            T::Leaf(_) => 1,
            T::Op(_, l, r) => 1 + depth(l).max(depth(r)),
        }
    }

    fn leaves(t: &T, out: &mut Vec<u32>) {
        match t {
            T::Leaf(x) => out.push(*x),
            T::Op(_, l, r) => {
                leaves(l, out);
                leaves(r, out);
            }
        }
    }

    fn chain(n: u32, may: impl Fn(char, &T) -> bool) -> T {
        let rest = (1..n).map(|i| ('+', T::Leaf(i))).collect();
        associate(T::Leaf(0), rest, may, |op, l, r| {
            T::Op(op, Box::new(l), Box::new(r))
        })
    }

    #[test]
    fn short_chains_are_built_as_written() {
        let t = chain(3, |_, _| true);
        let expected = T::Op(
            '+',
            Box::new(T::Op('+', Box::new(T::Leaf(0)), Box::new(T::Leaf(1)))),
            Box::new(T::Leaf(2)),
        );
        assert_eq!(t, expected);
        assert_eq!(depth(&chain(CHAIN_RUN as u32, |_, _| true)), CHAIN_RUN);
    }

    #[test]
    fn long_chains_are_shallow_and_keep_their_order() {
        let t = chain(100_000, |_, _| true);
        assert!(depth(&t) <= CHAIN_RUN + 12, "{}", depth(&t));
        let mut out = Vec::new();
        leaves(&t, &mut out);
        assert_eq!(out, (0..100_000).collect::<Vec<_>>());
        // Without places to cut, the chain stays one comb.
        let comb = chain(200, |_, _| false);
        assert_eq!(depth(&comb), 200);
        let t = deeper_than(&comb, 199, |n, out| {
            if let T::Op(_, l, r) = n {
                out.extend([&**l, &**r]);
            }
        });
        assert_eq!(t, Some(&T::Leaf(0)));
    }

    #[test]
    fn nesting_is_counted_and_restored() {
        let mut d = Depth::new(2);
        assert!(d.enter().is_ok());
        assert!(d.enter().is_ok());
        assert_eq!(d.enter(), Err("nesting deeper than 2".to_string()));
        d.leave();
        assert!(d.enter().is_ok());
    }

    #[test]
    fn memory_limits_read_and_say_what_is_needed() {
        assert_eq!("2G".parse(), Ok(MemoryLimit::bytes(2 << 30)));
        assert_eq!("512MiB".parse(), Ok(MemoryLimit::bytes(512 << 20)));
        assert_eq!("100".parse(), Ok(MemoryLimit::bytes(100)));
        assert!("2X".parse::<MemoryLimit>().is_err());
        assert!("G".parse::<MemoryLimit>().is_err());
        assert_eq!(MemoryLimit::DEFAULT.to_string(), "1 GiB");
        let e = MemoryLimit::DEFAULT
            .check(3 << 29, || "the offset".into())
            .unwrap_err();
        assert_eq!(
            e,
            "the offset would need 1.5 GiB of memory, more than the memory limit of 1 GiB (--memory-limit)"
        );
        assert!(MemoryLimit::DEFAULT.check(1 << 30, String::new).is_ok());
    }
}
