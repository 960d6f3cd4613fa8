//! Access control (paper 20, ROSRV): who may call the service, and which events each client
//! may send. ROSRV's policy file is an INI file whose sections map ROS topics and master
//! commands to the hosts allowed to use them, each with a `default=`; identity there is a
//! source IP. Here identity is a client token, since an address proves little beyond
//! loopback, and the same sections map event names and requests to clients:
//!
//! ```ini
//! [Tokens]                   # client = its secret (sent as `Authorization: Bearer <secret>`)
//! ocu = 6c1f0b8e2d9a47c3b5e1
//! radar = 0d94b7a61e3c28f5a9b2
//!
//! [Groups]                   # a name for several clients
//! certikos = radar
//!
//! [Events]                   # ROSRV's [Publishers]: who may send each event
//! default = localhost certikos
//! trigger = ocu
//!
//! [Commands]                 # which requests each client may make
//! default = localhost certikos ocu
//! close = localhost          # local access only
//! ```
//!
//! `localhost` is the built-in client of a request from loopback without a token; `*` is
//! every client. A section that is absent restricts nothing; a section that is present allows
//! only what it names, an unnamed event or command falling to its `default=` (none if it has
//! no `default=`). The commands are `events`, `status`, `close`, `verdicts` (both reads and
//! the live stream) and `metrics`; `GET /v1/health` needs nothing.

use std::collections::{BTreeMap, BTreeSet};

use rvmon_core::Error;

/// The built-in client: a request from a loopback address without a token.
pub const LOCALHOST: &str = "localhost";

/// The requests a client may be allowed.
pub const COMMANDS: [&str; 5] = ["events", "status", "close", "verdicts", "metrics"];

/// A policy file, read.
#[derive(Debug, Default)]
pub struct Policy {
    /// Client → its token.
    tokens: Vec<(String, String)>,
    /// Event name → the clients allowed (`None`: no `[Events]` section, no restriction).
    events: Option<Rules>,
    commands: Option<Rules>,
}

/// One section of rules: per name, the clients allowed; and the default's.
#[derive(Debug, Default)]
struct Rules {
    named: BTreeMap<String, Allowed>,
    default: Allowed,
}

/// Clients allowed: every one, or those named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Allowed {
    #[default]
    Nobody,
    Everyone,
    Clients(BTreeSet<String>),
}

impl Allowed {
    fn has(&self, client: &str) -> bool {
        match self {
            Allowed::Nobody => false,
            Allowed::Everyone => true,
            Allowed::Clients(c) => c.contains(client),
        }
    }
}

impl Rules {
    fn allows(&self, name: &str, client: &str) -> bool {
        self.named.get(name).unwrap_or(&self.default).has(client)
    }
}

/// One `name = value` line of a section, with where its name and value start.
#[derive(Debug)]
struct Entry {
    line: usize,
    key_col: usize,
    value_col: usize,
    key: String,
    value: String,
}

/// Why a request is refused: 401 (who is asking is unknown) or 403 (not allowed).
#[derive(Debug, PartialEq, Eq)]
pub struct Denied {
    pub status: u16,
    pub message: String,
}

/// The shortest token accepted: a guessable secret is no secret.
const MIN_TOKEN: usize = 16;

impl Policy {
    /// Reads the policy `text` of the file `file`; errors say where and what was expected.
    pub fn parse(file: &str, text: &str) -> Result<Policy, Error> {
        let mut sections: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
        let mut current: Option<String> = None;
        let at = |line: usize, col: usize, m: String| {
            Error::at(
                rvmon_core::SourcePos {
                    file: file.to_string(),
                    line,
                    col,
                },
                m,
            )
        };
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            let body = raw.split('#').next().unwrap_or("");
            let trimmed = body.trim();
            if trimmed.is_empty() {
                continue;
            }
            let col = body.len() - body.trim_start().len() + 1;
            if let Some(name) = trimmed.strip_prefix('[') {
                let Some(name) = name.strip_suffix(']') else {
                    return Err(at(
                        line,
                        col,
                        "expected `]` closing the section's name".into(),
                    ));
                };
                let name = name.trim().to_string();
                if !["Tokens", "Groups", "Events", "Commands"].contains(&name.as_str()) {
                    return Err(at(
                        line,
                        col,
                        format!(
                            "unknown section `[{name}]`: expected [Tokens], [Groups], [Events] \
                             or [Commands]"
                        ),
                    ));
                }
                if sections.contains_key(&name) {
                    return Err(at(line, col, format!("section `[{name}]` appears twice")));
                }
                sections.insert(name.clone(), Vec::new());
                current = Some(name);
                continue;
            }
            let Some((key, value)) = trimmed.split_once('=') else {
                return Err(at(
                    line,
                    col,
                    "expected `name = value` or `[Section]`".into(),
                ));
            };
            let Some(section) = &current else {
                return Err(at(
                    line,
                    col,
                    "expected a `[Section]` before the first entry".into(),
                ));
            };
            let key = key.trim().to_string();
            if key.is_empty() {
                return Err(at(line, col, "expected a name before `=`".into()));
            }
            let entries = sections
                .get_mut(section)
                .expect("made when its header was read");
            if entries.iter().any(|e| e.key == key) {
                return Err(at(
                    line,
                    col,
                    format!("`{key}` is given twice in [{section}]"),
                ));
            }
            // (Columns count characters; the value starts after `=` and its spaces.)
            let eq = trimmed[..trimmed.find('=').unwrap_or(0)].chars().count();
            let spaces = value.len() - value.trim_start().len();
            let value_col = col + eq + 1 + spaces;
            entries.push(Entry {
                line,
                key_col: col,
                value_col,
                key,
                value: value.trim().to_string(),
            });
        }
        Policy::from_sections(sections, at)
    }

    fn from_sections(
        mut sections: BTreeMap<String, Vec<Entry>>,
        at: impl Fn(usize, usize, String) -> Error,
    ) -> Result<Policy, Error> {
        let mut policy = Policy::default();
        for e in sections.remove("Tokens").unwrap_or_default() {
            let (line, col, client, token) = (e.line, e.value_col, e.key, e.value);
            if client == LOCALHOST || client == "*" || client == "default" {
                let m = format!("`{client}` is reserved, not a client's name");
                return Err(at(line, e.key_col, m));
            }
            if token.chars().count() < MIN_TOKEN || token.contains(char::is_whitespace) {
                return Err(at(
                    line,
                    col,
                    format!(
                        "the token of `{client}`: expected at least {MIN_TOKEN} characters \
                         without spaces (a random secret)"
                    ),
                ));
            }
            if policy.tokens.iter().any(|(_, t)| *t == token) {
                return Err(at(
                    line,
                    col,
                    format!("`{client}` has another client's token"),
                ));
            }
            policy.tokens.push((client, token));
        }
        if policy.tokens.is_empty() {
            return Err(at(
                1,
                1,
                "expected a [Tokens] section naming at least one client and its token".into(),
            ));
        }
        let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for e in sections.remove("Groups").unwrap_or_default() {
            let (line, col, group, members) = (e.line, e.value_col, e.key, e.value);
            let mut set = BTreeSet::new();
            for m in members.split_whitespace() {
                match groups.get(m) {
                    Some(inner) => set.extend(inner.iter().cloned()),
                    None if policy.is_client(m) => {
                        set.insert(m.to_string());
                    }
                    None => return Err(at(line, col, policy.unknown(m))),
                }
            }
            if policy.is_client(&group) || group == "*" {
                let m = format!("`{group}` is a client's name, not a group's");
                return Err(at(line, e.key_col, m));
            }
            groups.insert(group, set);
        }
        let mut rules = |name: &str, known: Option<&[&str]>| -> Result<Option<Rules>, Error> {
            let Some(entries) = sections.remove(name) else {
                return Ok(None);
            };
            let mut r = Rules::default();
            for e in entries {
                let (line, col, key, value) = (e.line, e.value_col, e.key, e.value);
                if let (Some(known), false) = (known, key == "default") {
                    if !known.contains(&key.as_str()) {
                        return Err(at(
                            line,
                            e.key_col,
                            format!(
                                "unknown command `{key}`: expected one of {}",
                                known.join(", ")
                            ),
                        ));
                    }
                }
                let allowed = policy
                    .allowed(&value, &groups)
                    .map_err(|m| at(line, col, m))?;
                if key == "default" {
                    r.default = allowed;
                } else {
                    r.named.insert(key, allowed);
                }
            }
            Ok(Some(r))
        };
        let events = rules("Events", None)?;
        let commands = rules("Commands", Some(&COMMANDS))?;
        policy.events = events;
        policy.commands = commands;
        Ok(policy)
    }

    fn is_client(&self, name: &str) -> bool {
        name == LOCALHOST || self.tokens.iter().any(|(c, _)| c == name)
    }

    fn unknown(&self, name: &str) -> String {
        format!("`{name}` is no client (of [Tokens], or `localhost`) and no group defined above")
    }

    /// The clients a rule's value names.
    fn allowed(
        &self,
        value: &str,
        groups: &BTreeMap<String, BTreeSet<String>>,
    ) -> Result<Allowed, String> {
        let mut set = BTreeSet::new();
        for name in value.split_whitespace() {
            if name == "*" {
                return Ok(Allowed::Everyone);
            }
            match groups.get(name) {
                Some(members) => set.extend(members.iter().cloned()),
                None if self.is_client(name) => {
                    set.insert(name.to_string());
                }
                None => return Err(self.unknown(name)),
            }
        }
        Ok(if set.is_empty() {
            Allowed::Nobody
        } else {
            Allowed::Clients(set)
        })
    }

    /// Who is asking: the client whose token `bearer` is, or `localhost` for a request from
    /// loopback without one.
    pub fn identify(&self, bearer: Option<&str>, loopback: bool) -> Result<String, Denied> {
        let unknown = |m: &str| Denied {
            status: 401,
            message: m.to_string(),
        };
        match bearer {
            None if loopback => Ok(LOCALHOST.to_string()),
            None => Err(unknown(
                "this service needs a client token: `Authorization: Bearer <token>`",
            )),
            Some(token) => {
                // (Every token is compared, each in time independent of where it differs:
                // the answer's timing tells nothing about a secret.)
                let mut found = None;
                for (client, secret) in &self.tokens {
                    if same(secret.as_bytes(), token.as_bytes()) {
                        found = Some(client);
                    }
                }
                found
                    .cloned()
                    .ok_or_else(|| unknown("unknown client token"))
            }
        }
    }

    /// Whether `client` may make the request `command` (one of [`COMMANDS`]).
    pub fn may(&self, client: &str, command: &str) -> Result<(), Denied> {
        match &self.commands {
            Some(rules) if !rules.allows(command, client) => Err(Denied {
                status: 403,
                message: format!(
                    "client `{client}` may not make `{command}` requests ([Commands] of the \
                     token file)"
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Whether `client` may send events named `event`.
    pub fn may_send(&self, client: &str, event: &str) -> bool {
        self.events
            .as_ref()
            .is_none_or(|rules| rules.allows(event, client))
    }
}

/// Whether `a` and `b` are equal, in time that depends only on their lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (k, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(k).copied().unwrap_or(!x));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paper 20's Fig. 5 policy, with tokens for its hosts (the bundled example).
    const LANDSHARK: &str = include_str!("../../../examples/serve/landshark.ini");

    fn landshark() -> Policy {
        Policy::parse("landshark.ini", LANDSHARK).unwrap()
    }

    #[test]
    fn paper_20_policy_full_limited_and_local_access() {
        let p = landshark();
        // Only `ocu` may send the trigger; the others send what `default` allows.
        assert!(p.may_send("ocu", "trigger"));
        assert!(!p.may_send("radar", "trigger"));
        assert!(!p.may_send(LOCALHOST, "trigger"));
        assert!(p.may_send("radar", "position"));
        assert!(!p.may_send("ocu", "position"));
        // Full access: everyone; limited: not ocu; local only: localhost alone.
        for c in [LOCALHOST, "radar", "gps", "ocu"] {
            assert!(p.may(c, "status").is_ok(), "{c}");
            assert!(p.may(c, "events").is_ok(), "{c}: default = *");
        }
        assert_eq!(p.may("ocu", "verdicts").unwrap_err().status, 403);
        assert!(p.may("radar", "verdicts").is_ok());
        assert!(p.may(LOCALHOST, "close").is_ok());
        assert_eq!(p.may("radar", "close").unwrap_err().status, 403);
    }

    #[test]
    fn tokens_identify_clients_and_nothing_else_does() {
        let p = landshark();
        assert_eq!(
            p.identify(Some("ocu-0123456789abcdef"), false).unwrap(),
            "ocu"
        );
        assert_eq!(p.identify(None, true).unwrap(), LOCALHOST);
        assert_eq!(p.identify(None, false).unwrap_err().status, 401);
        for wrong in [
            "ocu-0123456789abcdeF",
            "ocu-0123456789abcde",
            "",
            "localhost",
        ] {
            assert_eq!(
                p.identify(Some(wrong), true).unwrap_err().status,
                401,
                "{wrong}"
            );
        }
    }

    #[test]
    fn absent_sections_restrict_nothing_and_present_ones_default_to_nobody() {
        let open = Policy::parse("p", "[Tokens]\na = aaaaaaaaaaaaaaaaaaaa\n").unwrap();
        assert!(open.may_send("a", "anything") && open.may("a", "close").is_ok());
        let shut = Policy::parse(
            "p",
            "[Tokens]\na = aaaaaaaaaaaaaaaaaaaa\n[Events]\np = a\n[Commands]\nevents = a\n",
        )
        .unwrap();
        assert!(shut.may_send("a", "p") && !shut.may_send("a", "q"));
        assert!(shut.may("a", "events").is_ok() && shut.may("a", "status").is_err());
    }

    #[test]
    fn mistakes_are_refused_with_their_place() {
        let cases = [
            ("[Tokens]\na = short\n", "p:2:5: the token of `a`"),
            (
                "a = aaaaaaaaaaaaaaaaaaaa\n",
                "p:1:1: expected a `[Section]`",
            ),
            ("[Tokens\n", "p:1:1: expected `]`"),
            ("[Hosts]\n", "p:1:1: unknown section `[Hosts]`"),
            (
                "[Tokens]\nlocalhost = aaaaaaaaaaaaaaaaaaaa\n",
                "p:2:1: `localhost` is reserved",
            ),
            (
                "[Tokens]\na = aaaaaaaaaaaaaaaaaaaa\n[Events]\n  p = b\n",
                "p:4:7: `b` is no client",
            ),
            (
                "[Tokens]\na = aaaaaaaaaaaaaaaaaaaa\n[Commands]\nshutdown = a\n",
                "p:4:1: unknown command `shutdown`",
            ),
            (
                "[Tokens]\na = aaaaaaaaaaaaaaaaaaaa\nb = aaaaaaaaaaaaaaaaaaaa\n",
                "`b` has another client's token",
            ),
            ("[Groups]\n", "p:1:1: expected a [Tokens] section"),
            ("[Tokens]\na\n", "p:2:1: expected `name = value`"),
        ];
        for (text, expected) in cases {
            let e = Policy::parse("p", text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
    }

    #[test]
    fn comparison_is_exact() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd") && !same(b"abc", b"ab") && !same(b"ab", b"abc"));
        assert!(!same(b"", b"a") && same(b"", b""));
    }
}
