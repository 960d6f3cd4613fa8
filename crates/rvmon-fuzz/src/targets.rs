//! The fuzz targets: every parser and reader, each engine's compile step (through
//! `rvmon check`, in-process, as the command runs them), and `rvmon monpoly`'s arguments and
//! saved states. A target takes bytes, as a file would give them; an error is a fine outcome,
//! a panic or a hang is not. It returns whether the input was accepted (read or run to its
//! end without an error): the share of accepted mutants tells how deep the fuzzing goes.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use rvmon_cli::check_cmd::{self, CheckArgs};
use rvmon_cli::monpoly_cmd::{self, MonpolyArgs};
use rvmon_core::TimePoint;
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

use rvmon_serve::stream::{Enforce, Format, Options, Post, Spec, Stream};

use crate::mutate::Grammar;

/// A fuzz target.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]) -> bool,
    /// Its seeds: hand-written inputs, and the bundled examples with these extensions.
    seeds: &'static [&'static str],
    examples: &'static [&'static str],
    tokens: &'static [&'static str],
    nests: &'static [(&'static str, &'static str)],
    /// A seed made at run time.
    made: Option<fn() -> Vec<u8>>,
    /// Cases of the short run (cheap targets take more).
    pub short_cases: u32,
}

impl Target {
    /// The target's grammar for [`crate::mutate::inputs`], nesting up to `max_depth`.
    pub fn grammar(&self, max_depth: usize) -> Grammar {
        let mut seeds: Vec<Vec<u8>> = self.seeds.iter().map(|s| s.as_bytes().to_vec()).collect();
        seeds.extend(examples(self.examples));
        seeds.extend(self.made.map(|make| make()));
        Grammar {
            seeds,
            tokens: self.tokens.to_vec(),
            nests: self.nests.to_vec(),
            max_depth,
        }
    }

    /// The bundled examples among its seeds.
    pub fn bundled_examples(&self) -> Vec<Vec<u8>> {
        examples(self.examples)
    }
}

/// The repository's directory.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled examples (`examples/*/*`) with one of these extensions.
fn examples(extensions: &[&str]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let Ok(dirs) = std::fs::read_dir(workspace().join("examples")) else {
        return found;
    };
    let mut files: Vec<PathBuf> = dirs
        .flatten()
        .filter_map(|d| std::fs::read_dir(d.path()).ok())
        .flat_map(|d| d.flatten().map(|f| f.path()))
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            extensions.contains(&ext)
        })
        .collect();
    // The same order everywhere, so that a seed of the RNG names the same inputs.
    files.sort();
    found.extend(files.iter().filter_map(|p| std::fs::read(p).ok()));
    found
}

const FORMULA: &str =
    "(PAST_ALWAYS[0,5d] (p() IMPLIES ONCE(1,*) q())) AND NOT (r() SINCE[2,3) s()) OR \
                       NEXT EVENTUALLY[0,3] (a() UNTIL b()) # c\n LET P() = TRUE IN P() AND 1 < 2";
/// MonPoly's block comments (which rvmon's lexer refuses today, a bug left to the parser's
/// owners; the seed is kept for when it reads).
const COMMENTED: &str = "p() (* a comment *) AND ONCE q()";
/// A first-order policy with most of what the compiler and the engine do: `LET`, a `SINCE`
/// state shared up to renaming, an existential and an anti-existential join, a comparison to
/// push down, arithmetic, an aggregation, past and future windows.
const FO_FORMULA: &str = "LET h(t,l) = NOT rel(t,l) SINCE[0,*) acq(t,l) IN \
                          (use(t,x) AND NOT (EXISTS l. (h(t,l) AND l > 1))) IMPLIES \
                          ((EXISTS y. (use(y,x) AND ONCE[0,5] h(y,x))) \
                          OR (EXISTS c. (c <- CNT y; t ONCE[0,3] use(t,y)) AND c > 2) \
                          OR EVENTUALLY[0,3] acq(t,x) OR PREVIOUS (use(x,t) AND x < t + 1))";
const STRINGS_FORMULA: &str = "(EXISTS s. name(x, s) AND s SUBSTRING \"abc\" AND s MATCHES r\"a.*\" \
                               AND f2i(i2f(x) / 2.5) >= 1) IMPLIES NOT ONCE[0,10] (EXISTS a. auth(x, a) AND a > 3)";
/// Declares the predicates of every formula seed, the bundled examples' included.
pub const SIG: &str = "alive(c:int) net(c:int) auth(c:int,t:int) upd_start(c:int) upd_connect(c:int) \
                       upd_success(c:int) upd_skip(c:int) ssh_login(c:int,s:int) ssh_logout(c:int,s:int)\n\
                       read(int,int) write(int,int) acq(int,int) rel(int,int) use(int,int) enter(int) exit(int)\n\
                       name(int,string) request() grant() heartbeat() p() q() r() s() a() b()\n";
/// A log of those predicates (mutants of the seeds run through the engines on it).
pub const LOG: &str = "@0 request() alive(1) auth(1,1500) enter(1) acq(1,5) name(1,\"abc\")\n\
                       @1 grant() net(1) read(1,2) use(1,2) upd_start(1) p() r()\n\
                       @1 write(2,2) enter(2) upd_connect(1) ssh_login(1,3) use(2,2)\n\
                       @3 exit(1) rel(1,5) acq(2,5) heartbeat() upd_success(1) s() a()\n\
                       @4 read(2,2) exit(2) auth(2,200) ssh_logout(1,3) p() q() name(2,\"xy\")\n\
                       @9 request() write(1,2) upd_skip(2) use(2,1) a() b() acq(2,3)\n\
                       @20 grant() r() s() rel(2,3) use(1,1)\n";
const FORMULA_TOKENS: &[&str] = &[
    "NOT ",
    " AND ",
    " OR ",
    " IMPLIES ",
    " EQUIV ",
    "PREVIOUS ",
    "NEXT ",
    "ONCE ",
    "EVENTUALLY ",
    "PAST_ALWAYS ",
    "ALWAYS ",
    " SINCE ",
    " UNTIL ",
    "EXISTS x. ",
    "FORALL y. ",
    "LET f(x) = ",
    " IN ",
    "TRUE",
    "FALSE",
    "CNT ",
    "SUM ",
    "MIN ",
    "MAX ",
    "AVG ",
    "MED ",
    "SUBSTRING(",
    " MATCHES ",
    "(",
    ")",
    "[0,3]",
    "(2,*)",
    "[1,5d]",
    ",",
    ";",
    "<-",
    "=",
    "<",
    "<=",
    "+",
    "-",
    "*",
    "/",
    " MOD ",
    "\"s\"",
    "1.5",
    "x",
    "y",
    "#",
    "(*",
    "*)",
    "\n",
    "p()",
    "q(x)",
    "use(x,y)",
    "r(\"a\", 1)",
    "i2f(",
    "f2i(",
    "r2s(",
    "s2r(",
];
const NESTS: &[(&str, &str)] = &[("(", ")"), ("NOT ", ""), ("ONCE ", ""), ("NEXT ", "")];

const LTL_SEEDS: &[&str] = &[
    "G(request -> F grant)",
    "G (a -> X (b U c)) & F[2:4] a",
    "!(p W q) <-> (r M s) xor \"quoted name\"",
    "[] <> heartbeat && (request R !grant)",
    "G(request -> F[0:3] grant) | X[2] 1 & G[1:2] 0",
];
const LTL_TOKENS: &[&str] = &[
    "G ", "F ", "X ", " U ", " R ", " W ", " M ", "!", " & ", " | ", " -> ", " <-> ", " xor ",
    "[]", "<>", "true", "false", "1", "0", "\"q r\"", "F[2:4] ", "G[1:3] ", "X[2] ", "(", ")",
    "request", "grant", "&&", "||", "~",
];
const LTL_NESTS: &[(&str, &str)] = &[("(", ")"), ("!", ""), ("X ", ""), ("G F ", "")];

const SIG_SEEDS: &[&str] = &["p(x:int, y:string)\nq (int,float) r()", SIG];
const SIG_TOKENS: &[&str] = &[
    "(", ")", ":", "int", "string", "float", "regexp", ",", "\n", "p", "x:", " ",
];

const LOG_SEEDS: &[&str] = &[
    "@0 p(1,\"a b\") (2,x)\n q() ;@1 >terminate< @2 r(1.5e3)\n# c\n@3",
    LOG,
];
const LOG_TOKENS: &[&str] = &[
    "@",
    "(",
    ")",
    ",",
    ";",
    "\"",
    ">terminate<",
    "# c\n",
    "\n",
    "1.5e3",
    "-1",
    " ",
    "p(",
    "@9223372036854775807",
    "\"\\\"\"",
    "()",
];

const CSV_SEEDS: &[&str] = &[
    "open, file = f1, time = 10\nclose, file=f1\n\nwrite,a=b=c\n",
    "time,x,y\n0,1,0.5\n1,,true\n2,-3,\"q\"\n",
    "a, time = 0, x = 1\nb, time = 0, x = 2\nc, time = 3, x = \"7\"\n",
];
const CSV_TOKENS: &[&str] = &[
    ",",
    "=",
    "\n",
    "\"",
    "#",
    "time",
    " time = 1",
    "ts",
    "\r\n",
    "1.5",
    "-",
    "\u{feff}",
];

const JSON_SEEDS: &[&str] = &[
    "{\"open\": {\"file\": \"f1\", \"n\": 2}}\n{\"name\": \"close\", \"fields\": {\"ok\": true}}\n[1]\n",
    "[{\"a\": {\"x\": 1, \"time\": 0}},\n {\"name\": \"b\", \"time\": 2, \"fields\": {\"x\": \"q\"}}]\n",
    "{\"a\": {\"x\": 1}, \"ts\": 3}\n{\"b\": {\"x\": -1.5e3, \"TS\": 4}}\n",
];
const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"",
    "null",
    "true",
    "false",
    "1e999",
    "-0",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "\"time\": 1",
    "\"name\": ",
    "\"fields\": {}",
    "\n",
    " ",
];
const JSON_NESTS: &[(&str, &str)] = &[("[", "]"), ("{\"a\":", "}")];

const XML_SEEDS: &[&str] = &[
    "<?xml version=\"1.0\"?><log><event><name>a</name><field><name>f</name><value>1 &amp; 2</value></field></event><event><name>b</name></event></log>",
    "<log>\n<event><name>a</name><field><name>time</name><value>3</value></field></event>\n</log>\n",
];
const XML_TOKENS: &[&str] = &[
    "<log>",
    "</log>",
    "<event>",
    "</event>",
    "<name>",
    "</name>",
    "<field>",
    "</field>",
    "<value>",
    "</value>",
    "&amp;",
    "&#x0;",
    "&#1114112;",
    "&bogus;",
    "<![CDATA[x]]>",
    "<?xml version=\"1.0\"?>",
    "<!-- c -->",
    "<a b=\"c\"/>",
    "<",
    ">",
    "/",
];
const XML_NESTS: &[(&str, &str)] = &[("<event>", "</event>"), ("<x>", "</x>")];

const LOLA: &str = "import math\ninput a: Int64, b: Float64\ninput s: String\n// c\n\
                    output c @ (a || b) := a.hold().defaults(to: 0) + 1\n\
                    output d := if a > 2 then a[-1, 0] * 2 else -a.offset(by: 1).defaults(to: 3)\n\
                    output m := min<Int64>(c, d) /* x */ % 3 == 0 -> s.get().defaults(to: \"z\") != \"q\"\n\
                    trigger d > 2 \"too big\"\ntrigger eval when !m with \"c={{}}\".format(c)";
/// The trace of the `lola` target: the inputs of its seeds and of the bundled examples.
const LOLA_TRACE: &str = "a,b,s,temp,pressure,mode,x,id,altitude,time\n\
                          1,2.5,x,20.5,#,idle,true,1,1000,0.1\n\
                          #,#,#,#,1.2,#,false,2,#,0.2\n3,,\"y,z\",95.5,2.5,run,false,1,1200.5,0.30\n\
                          -4,1e3,w,101,3,run,true,#,90,1\n7,0,v,1,1,idle,false,3,1e4,2.5\n";
/// A real-time seed: periodic streams, windows, parameterized streams, bit operators.
const LOLA_REAL_TIME: &str = "input a: Int64, b: Float64\ninput id: UInt64\n\
                              output p @ 2.5Hz := a.aggregate(over: 1s, using: sum) + a.hold(or: 0)\n\
                              output q @Global(3Hz) := b.aggregate(over_exactly: 0.5s, using: avg).defaults(to: 0.0)\n\
                              output k(x: UInt64) spawn with id when id > 0 eval when x = id with k(x).offset(by: -1).defaults(to: 0) + 1 close when k(x) = 3\n\
                              output l(x) spawn @1Hz with a.hold(or: 0) eval @1Hz with a.hold(or: 0) ^ 5 close when if true then true else l(x) = 0\n\
                              output w @1Hz := k(1).aggregate(over: 2s, using: count)\n\
                              trigger @id k(id).hold(or: 0) = 2 & id << 1 > 2 \"twice\"\n\
                              trigger a.aggregate(over_discrete: 3, using: max).defaults(to: 0) > 2 \"big\"";
const LOLA_CSV: &str = "a,b,s,time\n1,2.5,x,0.1\n#,#,#,0.2\n3,,\"y,z\",0.30\n-4,1e3,w,1\n";
const LOLA_JSONL: &str = "{\"time\": 0.1, \"a\": 1, \"b\": 2.5, \"s\": \"x\"}\n{\"time\": 0.2}\n\
                          {\"time\": 0.3, \"a\": 3, \"s\": null}\n{\"time\": 1, \"a\": -4, \"b\": 1e3}\n";
const LOLA_TOKENS: &[&str] = &[
    "input ",
    "output ",
    "trigger ",
    ": ",
    ":=",
    " @ ",
    "Int64",
    "Float64",
    "Bool",
    "String",
    "UInt8",
    ".offset(by: -1)",
    ".defaults(to: 0)",
    ".hold()",
    ".get()",
    ".is_fresh()",
    "[1, 0]",
    "[-1, 0]",
    "if ",
    " then ",
    " else ",
    " && ",
    " || ",
    "!",
    " -> ",
    "**",
    "%",
    "\"{{}}\".format(",
    "(",
    ")",
    " when ",
    " with ",
    "import math\n",
    "min(",
    "sqrt(",
    "cast<Int64,Float64>(",
    "\n",
    "a",
    "c",
    "@ 10Hz",
    "@ 3Hz",
    "@Local(2Hz)",
    "@0.1s",
    ".aggregate(over: 1s, using: sum)",
    ".aggregate(over_exactly: 0.3s, using: last)",
    ".aggregate(over_discrete: 2, using: min)",
    "spawn",
    "spawn with a when a > 0",
    " eval when x = a with ",
    " close when ",
    "(x: Int64)",
    "k(1).hold(or: 0)",
    " & ",
    " | ",
    " ^ ",
    " << ",
    " >> ",
    "~",
    "true",
    "1.5",
];
const LOLA_NESTS: &[(&str, &str)] = &[("(", ")"), ("-", ""), ("!", "")];

const STL: &str = "always[0,3]((x > 0) implies eventually[0,2](y > 0)) and (x - y + 1 >= abs(y)) \
                   or historically[1:2s](not x == 2) until[0,1] (y !== 1) xor rise(x > 1) \
                   iff s_prev F[1,1] pow(x, 2) / 3 * sqrt(exp(y)) < 1e3 -> once y > -0.5 since x > .5";
const STL_TOKENS: &[&str] = &[
    "always",
    "eventually",
    "historically",
    "once",
    "until",
    "since",
    "G",
    "F",
    "H",
    "O",
    "U",
    "S",
    "X",
    "Y",
    "sX",
    "next",
    "prev",
    "rise",
    "fall",
    "not ",
    "!",
    " and ",
    " & ",
    " or ",
    " | ",
    " implies ",
    " -> ",
    " iff ",
    " <-> ",
    " xor ",
    "[0,2]",
    "[1:3]",
    "[0,1000ms]",
    "[3,1]",
    "[0,1.5]",
    "(",
    ")",
    "x",
    "y",
    "z",
    " > ",
    " <= ",
    " == ",
    " !== ",
    " + ",
    " - ",
    " * ",
    " / ",
    "abs(",
    "pow(x,",
    "1e308",
    "-0.0",
    "0",
    "&&",
    "/*",
    "//",
    "\n",
];
const STL_NESTS: &[(&str, &str)] = &[
    ("(", ")"),
    ("not ", ""),
    ("always[0,1] ", ""),
    ("abs(", ")"),
];
/// Samples of the signals the STL seeds read.
const STL_TRACE: &str = "time,x,y\n0,1,-1\n1,-1,2\n2,2,-1\n3,3,0.5\n4,-1,1\n5,1,-2\n";

const RVM: &str = "// c\nP(c, i) {\n creation event create(c, i)\n event update(c)\n event next(i, _)\n where c < i, i >= c, c != i\n fsm:\n  s [ create -> u ]\n  u [ next -> u, update -> m ]\n  m [ next -> e ]\n  e [ ]\n @e \"bad {i} {c}\"\n @fail \"x\"\n}\nQ() { event a() fsm: s [ a -> s ] }";
const RVM_LTL: &str = "H(c, i) {\n event create(c, i)\n event update(c)\n event next(i)\n end event dispose(i)\n ltl: create => [] (update => [] !next) and (next => (*) (!update S create)) // x\n @violation \"bad {i}\"\n @validation \"ok\"\n}\nP(i) { event a(i) ltl: <*> a U o a\n}";
const RVM_ERE: &str = "L(l) {\n event acq(_, l)\n event rel(_, l)\n ere: (acq | rel)* & ~((acq | rel)* acq acq (acq | rel)*) | epsilon ~rel+ acq?\n @fail \"twice {l}\"\n @match \"m\"\n}";
/// Events bound by field name (refused on a MonPoly log, which names no fields).
const RVM_FIELDS: &str = "F(f) {\n event open(file: f, mode: _)\n event close(file: f)\n ere: (open close)*\n @fail \"{f}\"\n}";
const RVM_TOKENS: &[&str] = &[
    "event ",
    "creation event ",
    "end event ",
    "fsm:",
    "ere:",
    "ltl:",
    "[",
    "]",
    " -> ",
    "@fail \"f\"",
    "@match \"m\"",
    "@violation \"v\"",
    "@validation \"ok\"",
    "where ",
    " < ",
    " <= ",
    " != ",
    "{",
    "}",
    "(",
    ")",
    ",",
    "_",
    "*",
    "|",
    "&",
    "~",
    "+",
    "?",
    "epsilon",
    "[] ",
    "<> ",
    "(*) ",
    " S ",
    " U ",
    " => ",
    "o ",
    "x: ",
    "{i}",
    "\n",
    "create",
    "next",
];
const RVM_NESTS: &[(&str, &str)] = &[("(", ")"), ("~", ""), ("[] ", "")];

/// `rvmon monpoly` arguments, one a line; `{sig}`, `{formula}`, `{log}` and `{state}` name
/// the fixed files of [`Scratch`].
const ARGS_SEEDS: &[&str] = &[
    "-sig\n{sig}\n-formula\n{formula}\n-log\n{log}\n-negate",
    "-sig\n{sig}\n-formula\n{formula}\n-log\n{log}\n-verbose\n-nonewlastts\n-unfold_let\nsmart",
    "-sig\n{sig}\n-formula\n{formula}\n-log\n{log}\n-verified\n-no_rw\n-nofilteremptytp\n-collect_strings\n3",
    "-sig\n{sig}\n-formula\n{formula}\n-load\n{state}\n-log\n{log}",
    "-sig\n{sig}\n-formula\n{formula}\n-check",
    "-help",
];
const ARGS_TOKENS: &[&str] = &[
    "\n-sig\n",
    "\n-formula\n",
    "\n-log\n",
    "\n-negate",
    "\n-verbose",
    "\n-nonewlastts",
    "\n-nofilteremptytp",
    "\n-nofilterrel",
    "\n-no_rw",
    "\n-unfold_let\n",
    "no",
    "full",
    "smart",
    "\n-verified",
    "\n-check",
    "\n-help",
    "\n-load\n",
    "\n-collect_strings\n",
    "0",
    "{sig}",
    "{formula}",
    "{log}",
    "{state}",
    "-",
    "\n",
];

/// What `rvmon monpoly` resumes from with `-load`: a state saved by `>save_state<` (made
/// once, by [`Scratch::new`]).
const MONPOLY_FORMULA: &str = "use(t,x) AND NOT ONCE[0,5] acq(t,x) AND NOT PREVIOUS use(t,x)";

pub static TARGETS: &[Target] = &[
    Target {
        name: "formula",
        run: formula,
        seeds: &[FORMULA, FO_FORMULA, STRINGS_FORMULA, COMMENTED],
        examples: &["mtl", "mfotl"],
        tokens: FORMULA_TOKENS,
        nests: NESTS,
        made: None,
        short_cases: 600,
    },
    Target {
        name: "ltl",
        run: ltl,
        seeds: LTL_SEEDS,
        examples: &["mtl"],
        tokens: LTL_TOKENS,
        nests: LTL_NESTS,
        made: None,
        short_cases: 1000,
    },
    Target {
        name: "imprecise",
        run: imprecise,
        seeds: LTL_SEEDS,
        examples: &["mtl"],
        tokens: LTL_TOKENS,
        nests: LTL_NESTS,
        made: None,
        short_cases: 1000,
    },
    Target {
        name: "monpoly_formula",
        run: monpoly_formula,
        seeds: &[
            FORMULA,
            FO_FORMULA,
            STRINGS_FORMULA,
            MONPOLY_FORMULA,
            COMMENTED,
        ],
        examples: &["mfotl"],
        tokens: FORMULA_TOKENS,
        nests: NESTS,
        made: None,
        short_cases: 600,
    },
    Target {
        name: "signature",
        run: signature,
        seeds: SIG_SEEDS,
        examples: &["sig"],
        tokens: SIG_TOKENS,
        nests: &[("(", ")")],
        made: None,
        short_cases: 3000,
    },
    Target {
        name: "monpoly_log",
        run: monpoly_log,
        seeds: LOG_SEEDS,
        examples: &["log"],
        tokens: LOG_TOKENS,
        nests: &[("(", ")")],
        made: None,
        short_cases: 3000,
    },
    Target {
        name: "csv",
        run: |b| drain(TraceFormat::Csv, b),
        seeds: CSV_SEEDS,
        examples: &["csv"],
        tokens: CSV_TOKENS,
        nests: &[("\"", "\"")],
        made: None,
        short_cases: 2000,
    },
    Target {
        name: "csrv_csv",
        run: |b| drain(TraceFormat::CsrvCsv, b),
        seeds: CSV_SEEDS,
        examples: &[],
        tokens: CSV_TOKENS,
        nests: &[],
        made: None,
        short_cases: 2000,
    },
    Target {
        name: "signal_csv",
        run: |b| drain(TraceFormat::Signal, b),
        seeds: CSV_SEEDS,
        examples: &["csv"],
        tokens: CSV_TOKENS,
        nests: &[("\"", "\"")],
        made: None,
        short_cases: 2000,
    },
    Target {
        name: "json",
        run: |b| drain(TraceFormat::Json, b),
        seeds: JSON_SEEDS,
        examples: &[],
        tokens: JSON_TOKENS,
        nests: JSON_NESTS,
        made: None,
        short_cases: 3000,
    },
    Target {
        name: "jsonl",
        run: |b| drain(TraceFormat::Jsonl, b),
        seeds: JSON_SEEDS,
        examples: &[],
        tokens: JSON_TOKENS,
        nests: JSON_NESTS,
        made: None,
        short_cases: 3000,
    },
    Target {
        name: "xml",
        run: |b| drain(TraceFormat::Xml, b),
        seeds: XML_SEEDS,
        examples: &[],
        tokens: XML_TOKENS,
        nests: XML_NESTS,
        made: None,
        short_cases: 3000,
    },
    Target {
        name: "lola",
        run: lola,
        seeds: &[LOLA, LOLA_REAL_TIME],
        examples: &["lola"],
        tokens: LOLA_TOKENS,
        nests: LOLA_NESTS,
        made: None,
        short_cases: 1000,
    },
    Target {
        name: "stl",
        run: stl,
        seeds: &[STL],
        examples: &["stl"],
        tokens: STL_TOKENS,
        nests: STL_NESTS,
        made: None,
        short_cases: 1000,
    },
    Target {
        name: "lola_csv",
        run: lola_csv,
        seeds: &[LOLA_CSV],
        examples: &[],
        tokens: CSV_TOKENS,
        nests: &[("\"", "\"")],
        made: None,
        short_cases: 2000,
    },
    Target {
        name: "lola_jsonl",
        run: lola_jsonl,
        seeds: &[LOLA_JSONL],
        examples: &[],
        tokens: JSON_TOKENS,
        nests: JSON_NESTS,
        made: None,
        short_cases: 2000,
    },
    Target {
        name: "rvm",
        run: rvm,
        seeds: &[RVM, RVM_LTL, RVM_ERE, RVM_FIELDS],
        examples: &["rvm"],
        tokens: RVM_TOKENS,
        nests: RVM_NESTS,
        made: None,
        short_cases: 1000,
    },
    Target {
        name: "monpoly_args",
        run: monpoly_args,
        seeds: ARGS_SEEDS,
        examples: &[],
        tokens: ARGS_TOKENS,
        nests: &[],
        made: None,
        short_cases: 600,
    },
    Target {
        name: "monpoly_state",
        run: monpoly_state,
        seeds: &[],
        examples: &[],
        tokens: &[],
        nests: &[],
        made: Some(saved_state),
        short_cases: 600,
    },
    Target {
        name: "serve_batch",
        run: serve_batch,
        seeds: LOG_SEEDS,
        examples: &["log", "jsonl"],
        tokens: LOG_TOKENS,
        nests: &[("(", ")"), ("{", "}")],
        made: None,
        short_cases: 1500,
    },
    Target {
        name: "r2u2_spec",
        run: r2u2_spec,
        seeds: R2U2_SEEDS,
        examples: &["mltl", "c2po"],
        tokens: &[
            "G", "F", "H", "O", "U", "R", "S", "T", "[", "]", ",", "a0", "a1", "&", "|", "!", "->",
            "<->", "&&", "||", "INPUT", "FTSPEC", "PTSPEC", "DEFINE", ";", ":", "bool", "int",
            "float", "==", ">", "+", "TAU", "abs", "\n", "#", "--", "true", "false",
        ],
        nests: &[("(", ")"), ("[", "]")],
        made: None,
        short_cases: 1500,
    },
    Target {
        name: "r2u2_trace",
        run: r2u2_trace,
        seeds: &["# a0,a1\n1,0\n0,1\n@5 1,1\n", "# p,q,x\n1,0,2.5\n0,1,-3\n"],
        examples: &[],
        tokens: &["#", ",", "@", "0", "1", "-", ".", " ", "\n", "a0", "p"],
        nests: &[],
        made: None,
        short_cases: 1500,
    },
    Target {
        name: "modelplex",
        run: modelplex,
        seeds: &[
            "const m = 10\nmonitor model: -1 <= f' <= (m - x)/2 & x' = x + f'*t' | !(t' > 0)",
            "(-1<=fpost_0()&fpost_0()<=(m()-x)/ep())&fpost()=fpost_0()&xpost()=x",
            "\\exists T (0 <= T & T <= 1 & x' = x + f'*T) -> \\forall s (s*2 >= x <-> y' != s)",
        ],
        examples: &["modelplex"],
        tokens: &[
            "const", "monitor", ":", "=", "'", "⁺", "post", "()", "x", "y", "T", "&", "|", "!",
            "->", "<->", "<=", "<", ">=", "!=", "+", "-", "*", "/", "^", "2", "0.5", "1e-3",
            "\\exists", "\\forall", "∃", ".", "abs", "min", "max", ",", ";", "\n", "#", "/*",
        ],
        nests: &[("(", ")")],
        made: None,
        short_cases: 1500,
    },
    Target {
        name: "automaton",
        run: automaton,
        seeds: &[
            "{\"alphabet\": [\"a\", \"b\"], \"initial\": \"q\", \"accepting\": [\"q\"], \"transitions\": {\"q\": {\"a\": \"r\", \"b\": \"q\"}, \"r\": {\"a\": \"q\", \"b\": \"r\"}}}",
            "digraph g {\ns0 [label=\"s0\", shape=doublecircle];\ns0 -> s1 [label=\"a\"];\ns1 -> s0 [label=\"a\"];\n__start0 -> s0;\n}\n",
            "3 2\n1 1 0\n0 1\n2 1\n2 2\n",
        ],
        examples: &["json", "dfa"],
        tokens: &[
            "{", "}", "[", "]", "\"", ":", ",", "alphabet", "initial", "accepting", "states",
            "transitions", "->", "label=", "__start0", "doublecircle", ";", "\n", "0", "1", "2",
        ],
        nests: &[("{", "}"), ("[", "]")],
        made: None,
        short_cases: 1500,
    },
    Target {
        name: "smc",
        run: smc,
        seeds: &[
            "digraph c {\nq0 [label=\"start\"];\nq1 [label=\"won\"];\nq0 -> q1 [label=0.5];\nq0 -> q0 [label=0.5];\nq1 -> q1 [label=1.0];\n__start0 -> q0;\n}\n",
            "F<=3 won\n!lost U (won | point6)\nX won&lost\n",
            "init a b\ninit a:x b:y\n",
        ],
        examples: &["dot"],
        tokens: &[
            "->", "label=", "__start0", "0.5", "1.0", "F", "G", "X", "U", "<=", "!", "&", "|",
            "(", ")", "won", "true", " ", "\n", ":", "init",
        ],
        nests: &[("(", ")")],
        made: None,
        short_cases: 1500,
    },
    Target {
        name: "token_file",
        run: token_file,
        seeds: &[],
        examples: &["ini"],
        tokens: &[
            "[Tokens]",
            "[Groups]",
            "[Events]",
            "[Commands]",
            "=",
            "default",
            "localhost",
            "*",
            "#",
            "\n",
            " ",
            "events",
            "close",
            "0123456789abcdef",
        ],
        nests: &[("[", "]")],
        made: None,
        short_cases: 1500,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> &'static Target {
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no fuzz target `{name}`"))
}

/// Reads `bytes` in `format` to the end (or the 10 000th time point).
fn drain(format: TraceFormat, bytes: &[u8]) -> bool {
    drain_with(format, bytes, None)
}

fn drain_with(format: TraceFormat, bytes: &[u8], sig: Option<Signature>) -> bool {
    let src: Box<dyn std::io::BufRead> = Box::new(Cursor::new(bytes.to_vec()));
    let options = TraceOptions {
        sig,
        time_field: None,
    };
    let Ok(mut r) = open_reader(format, src, "t", options) else {
        return false;
    };
    let mut tp = TimePoint::default();
    for _ in 0..10_000 {
        match r.next_time_point(&mut tp) {
            Ok(true) => {}
            Ok(false) => return true,
            Err(_) => return false,
        }
    }
    true
}

fn monpoly_log(bytes: &[u8]) -> bool {
    let plain = drain(TraceFormat::Monpoly, bytes);
    drain_with(TraceFormat::Monpoly, bytes, Signature::parse("s", SIG).ok()) || plain
}

fn signature(bytes: &[u8]) -> bool {
    rvmon_core::text::utf8("s", 1, bytes).is_ok_and(|text| Signature::parse("s", text).is_ok())
}

/// Files a thread's cases share: the fixed signature, logs, stream events and the saved
/// MonPoly state, written once, and the file each case writes its input to.
pub struct Scratch {
    pub dir: PathBuf,
}

thread_local! {
    static SCRATCH: Scratch = Scratch::new();
}

impl Scratch {
    fn new() -> Scratch {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "rvmon-fuzz-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let s = Scratch { dir };
        let rvm_log: String = examples(&["log"])
            .iter()
            .flat_map(|l| {
                String::from_utf8_lossy(l)
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|l| l.starts_with('@'))
            .enumerate()
            .map(|(i, l)| format!("@{i} {}\n", l.split_once(' ').map_or("", |(_, e)| e)))
            .collect();
        for (name, text) in [
            ("s.sig", SIG),
            ("t.log", LOG),
            ("rvm.log", rvm_log.as_str()),
            ("t.csv", LOLA_TRACE),
            ("stl.csv", STL_TRACE),
            ("f.mfotl", MONPOLY_FORMULA),
        ] {
            std::fs::write(s.path(name), text).expect("a scratch file");
        }
        let saving = format!("{LOG}>save_state {}<\n", s.path("state").display());
        std::fs::write(s.path("saving.log"), saving).expect("a scratch file");
        let args = s.monpoly_args(&["-sig", "{sig}", "-formula", "{formula}", "-log", "{log}"]);
        let mut args = MonpolyArgs::parse(&args).expect("fixed arguments");
        args.log = Some(s.path("saving.log").display().to_string());
        monpoly_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink())
            .expect("the fixed run saves its state");
        s
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// `args` with the fixed files' names in place of `{sig}`, `{formula}`, `{log}`, `{state}`.
    fn monpoly_args(&self, args: &[&str]) -> Vec<String> {
        let file = |n: &str| self.path(n).display().to_string();
        args.iter()
            .map(|a| {
                a.replace("{sig}", &file("s.sig"))
                    .replace("{formula}", &file("f.mfotl"))
                    .replace("{log}", &file("t.log"))
                    .replace("{state}", &file("state"))
            })
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `rvmon check SPEC TRACE [--sig]` and `--explain`, with the input as the spec file `name`.
fn check_spec(bytes: &[u8], name: &str, trace: &str, sig: bool) -> bool {
    SCRATCH.with(|s| {
        let spec = s.path(name);
        std::fs::write(&spec, bytes).expect("a scratch file");
        let mut args = CheckArgs::new(
            spec.display().to_string(),
            s.path(trace).display().to_string(),
        );
        args.sig = sig.then(|| s.path("s.sig").display().to_string());
        let run = check_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
        args.explain = true;
        let _ = check_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
        run.is_ok()
    })
}

/// A formula in MonPoly's syntax: parsed, analysed, normalised and printed as `rvmon monpoly`
/// does, then run by `rvmon check` (the propositional or the first-order engine).
fn formula(bytes: &[u8]) -> bool {
    if let Ok(text) = rvmon_core::text::utf8("f", 1, bytes) {
        if let Ok(f) = rvmon_logic::parse_formula("f", text) {
            let _ = rvmon_logic::analyze("f", text, &f);
            let normal = rvmon_logic::monpoly::normalize(&f);
            let _ = rvmon_logic::monpoly::to_monpoly_string(&normal);
        }
    }
    check_spec(bytes, "f.mfotl", "t.log", true)
}

/// A formula monitored with imprecise timestamps (`--timestamp-error`: the rewriting to
/// cells and the propositional engine), with a whole and a decimal error.
fn imprecise(bytes: &[u8]) -> bool {
    SCRATCH.with(|s| {
        let spec = s.path("i.mtl");
        std::fs::write(&spec, bytes).expect("a scratch file");
        let mut args = CheckArgs::new(
            spec.display().to_string(),
            s.path("t.log").display().to_string(),
        );
        // (First-order formulas too: they need the signature.)
        args.sig = Some(s.path("s.sig").display().to_string());
        let mut ok = false;
        for delta in ["1", "0.5"] {
            args.timestamp_error = Some(delta.into());
            args.explain = false;
            ok |= check_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink()).is_ok();
            args.explain = true;
            let _ = check_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
        }
        ok
    })
}

/// A `.ltl` file: Spot's syntax or MonPoly's, on the propositional engine.
fn ltl(bytes: &[u8]) -> bool {
    check_spec(bytes, "f.ltl", "t.log", false)
}

/// `rvmon monpoly` with the input as its formula (MonPoly's normaliser, rewriter and
/// monitorability check before the engine).
fn monpoly_formula(bytes: &[u8]) -> bool {
    SCRATCH.with(|s| {
        std::fs::write(s.path("m.mfotl"), bytes).expect("a scratch file");
        let mut args = MonpolyArgs::parse(&s.monpoly_args(&["-sig", "{sig}", "-log", "{log}"]))
            .expect("fixed arguments");
        args.formula = Some(s.path("m.mfotl").display().to_string());
        let run = monpoly_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
        args.negate = true;
        args.verified = true;
        let _ = monpoly_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
        run.is_ok()
    })
}

fn lola(bytes: &[u8]) -> bool {
    check_spec(bytes, "s.lola", "t.csv", false)
}

/// An `.stl` formula, on a CSV trace of `x` and `y`.
fn stl(bytes: &[u8]) -> bool {
    check_spec(bytes, "f.stl", "stl.csv", false)
}

fn rvm(bytes: &[u8]) -> bool {
    check_spec(bytes, "p.rvm", "rvm.log", false)
}

/// Events for the seed stream specification, from CSV.
fn lola_csv(bytes: &[u8]) -> bool {
    let program = rvmon_stream::compile("s.lola", LOLA).expect("the seed compiles");
    let Ok(mut events) = rvmon_trace::events::CsvEvents::new(bytes, "t.csv", &program.inputs, None)
    else {
        return false;
    };
    rvmon_stream::run_events(program, &mut events, false, |_| Ok(())).is_ok()
}

/// Events for the seed stream specification, from JSON Lines.
fn lola_jsonl(bytes: &[u8]) -> bool {
    let program = rvmon_stream::compile("s.lola", LOLA).expect("the seed compiles");
    let mut events = rvmon_trace::events::JsonlEvents::new(bytes, "t.jsonl", &program.inputs, None);
    rvmon_stream::run_events(program, &mut events, true, |_| Ok(())).is_ok()
}

/// `rvmon monpoly ARGS`, one argument a line. Runs that would read standard input are not
/// made (the arguments are parsed all the same).
fn monpoly_args(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    SCRATCH.with(|s| {
        let lines: Vec<&str> = text.split('\n').collect();
        let Ok(args) = MonpolyArgs::parse(&s.monpoly_args(&lines)) else {
            return false;
        };
        let runs = args.log.as_deref().is_some_and(|l| l != "-") || args.help;
        runs && monpoly_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink()).is_ok()
    })
}

/// `rvmon monpoly -load STATE` with the input as the saved state (seeded with a real one).
fn monpoly_state(bytes: &[u8]) -> bool {
    SCRATCH.with(|s| {
        std::fs::write(s.path("input.state"), bytes).expect("a scratch file");
        let args = s.monpoly_args(&["-sig", "{sig}", "-formula", "{formula}", "-log", "{log}"]);
        let mut args = MonpolyArgs::parse(&args).expect("fixed arguments");
        args.load = Some(s.path("input.state").display().to_string());
        monpoly_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink()).is_ok()
    })
}

/// The seeds of `monpoly_state`: the state saved by the fixed run, which needs the scratch
/// directory (so it is not a static seed).
pub fn saved_state() -> Vec<u8> {
    SCRATCH.with(|s| std::fs::read(s.path("state")).expect("the saved state"))
}

thread_local! {
    /// `rvmon serve`'s streams for [`serve_batch`], one per engine kind, kept for the thread's
    /// cases (a batch taken changes them, as a service's stream goes on).
    static SERVED: std::cell::RefCell<[Stream; 4]> = std::cell::RefCell::new(served_streams());
}

fn served_streams() -> [Stream; 4] {
    // In the thread's scratch directory, which goes when the thread ends.
    let dir = SCRATCH.with(|s| s.path("serve"));
    let _ = std::fs::remove_dir_all(&dir);
    let spec = |name: &str, text: &str, sig: Option<Signature>| Spec {
        name: name.into(),
        text: text.into(),
        lang: None,
        sig,
    };
    // (First-order, typed by the signature the log targets use.)
    let formula = spec(
        "p.mfotl",
        "auth(c, t) IMPLIES (EVENTUALLY[0,5] alive(c)) AND ONCE[1,3] name(c, \"x\")",
        Signature::parse("s", SIG).ok(),
    );
    let options = Options {
        snapshot_every: Some(50),
        ..Options::default()
    };
    let points = Stream::open(&dir.join("points"), &formula, &options).expect("a stream opens");
    let events = Stream::open(&dir.join("events"), &spec("s.lola", LOLA, None), &options)
        .expect("a stream opens");
    // Out of order within a lateness bound; and enforcing a past-time formula.
    let late = Options {
        max_lateness: 5.0,
        ..options.clone()
    };
    let late = Stream::open(&dir.join("late"), &formula, &late).expect("a stream opens");
    let enforcing = Options {
        enforce: Some(Enforce {
            drop: vec!["auth".into()],
        }),
        ..options
    };
    let past = spec(
        "past.mfotl",
        "auth(c, t) IMPLIES ONCE[1,3] name(c, \"x\")",
        Signature::parse("s", SIG).ok(),
    );
    let enforcing = Stream::open(&dir.join("enforce"), &past, &enforcing).expect("a stream opens");
    [points, events, late, enforcing]
}

/// A request body to `rvmon serve`, as MonPoly lines and as JSON Lines, to a formula's
/// stream and to a stream specification's, to a stream that takes time points out of order
/// and to one that enforces a past-time formula: refused whole or taken, never a panic.
fn serve_batch(bytes: &[u8]) -> bool {
    SERVED.with(|served| {
        let [points, events, late, enforcing] = &mut *served.borrow_mut();
        let a = points.append(Post::new(Format::Monpoly, bytes)).is_ok();
        let b = points.append(Post::new(Format::Jsonl, bytes)).is_ok();
        let c = events.append(Post::new(Format::Jsonl, bytes)).is_ok();
        let source = Post {
            source: Some("s1"),
            ..Post::new(Format::Monpoly, bytes)
        };
        let d = late.append(source).is_ok();
        let e = enforcing.append(Post::new(Format::Monpoly, bytes)).is_ok();
        a || b || c || d || e
    })
}

/// `rvmon serve --token-file`: refused with a place, or read and then asked about clients,
/// requests and events, never a panic.
fn token_file(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let Ok(policy) = rvmon_serve::access::Policy::parse("fuzz.ini", &text) else {
        return false;
    };
    for token in [None, Some("ocu-0123456789abcdef"), Some("")] {
        if let Ok(client) = policy.identify(token, true) {
            let _ = policy.may(&client, "close");
            let _ = policy.may_send(&client, "trigger");
        }
    }
    true
}

const R2U2_SEEDS: &[&str] = &[
    "G[5,10] a0\na0 U[0,2] a1\n",
    "H[2] a1\n(a0) S[0,2] (a1)\n",
    "INPUT\n  p, q: bool; x: int; f: float;\nDEFINE\n  hot := x > 3;\nFTSPEC\n  \
     s: F[2,3] (p && hot);\n  G[0,4] (abs(f) < 2.5 || q);\nPTSPEC\n  O[1,2] (TAU % 3 == x);\n",
];

/// An R2U2 specification (both syntaxes), compiled and run on a few steps: refused with a
/// place or monitored, never a panic nor a step that does not end.
fn r2u2_spec(bytes: &[u8]) -> bool {
    use rvmon_core::event::{Event, Val};
    let text = String::from_utf8_lossy(bytes);
    let mut ok = false;
    for spec in [
        rvmon_r2u2::syntax::parse_mltl("f.mltl", &text),
        rvmon_r2u2::syntax::parse_c2po("f.c2po", &text),
    ]
    .into_iter()
    .flatten()
    {
        let Ok(mut m) = rvmon_r2u2::R2u2Monitor::new(spec) else {
            continue;
        };
        ok = true;
        let n = m.inputs().len();
        let mut interner = rvmon_core::Interner::new();
        let mut sink = rvmon_core::Collect::default();
        for step in 0..12i64 {
            let values = (0..n)
                .map(|k| Some(Val::Int((step + k as i64) % 3 - 1)))
                .collect();
            let ev = Event {
                time: step * 1_000_000_000,
                values,
            };
            let _ = rvmon_core::Monitor::feed(&mut m, &[ev], &mut interner, &mut sink);
        }
    }
    ok
}

/// A ModelPlex file, compiled (with and without a tolerance) and checked on pairs of
/// states, zeros, tiny, huge and negative values among them: refused with a place or
/// evaluated, never a panic (a division by zero is a verdict, not a crash).
fn modelplex(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let mut ok = false;
    for tolerance in [None, Some("0.01")] {
        let Ok(mut m) = rvmon_modelplex::ModelplexMonitor::new("f.modelplex", &text, tolerance)
        else {
            continue;
        };
        ok = true;
        let n = m.inputs().len();
        let values = [0.0, -1.0, 0.1, 1e-300, 1e300, 2.5, -0.0, 7.0];
        for k in 0..4 {
            let prior: Vec<f64> = (0..n).map(|i| values[(i + k) % values.len()]).collect();
            let post: Vec<f64> = (0..n)
                .map(|i| values[(i * 3 + k + 1) % values.len()])
                .collect();
            let _ = m.check(&prior, &post);
        }
    }
    ok
}

/// An automaton file (JSON, DOT, LearnLib's numeric): refused with a place, or read and, if
/// small, learned by every learner with the perfect oracle (never a panic, and the result is
/// the minimal equivalent automaton).
fn automaton(bytes: &[u8]) -> bool {
    use rvmon_learn::{eq::Perfect, learn, teacher::Teacher, Alg};
    let text = String::from_utf8_lossy(bytes);
    let Ok(dfa) = rvmon_learn::io::read("a.json", &text) else {
        return false;
    };
    if dfa.states() <= 20 && dfa.symbols() <= 4 {
        for alg in [Alg::Ttt, Alg::Lstar, Alg::Kv] {
            let mut system = dfa.clone();
            let mut teacher = Teacher::new(&mut system, dfa.symbols(), true);
            let learned = learn(
                alg,
                &dfa.alphabet,
                &mut teacher,
                &mut Perfect { target: &dfa },
            );
            assert!(
                learned.dfa.separating_word(&dfa).is_none(),
                "{alg:?} learned a wrong DFA"
            );
        }
    }
    let _ = rvmon_learn::io::write_dot(&dfa);
    true
}

/// A Markov chain's DOT, properties (a line each) and sequences: refused with a message, or
/// read, checked exactly and by a few simulated runs (bounded properties), and learned
/// (never a panic).
fn smc(bytes: &[u8]) -> bool {
    use rvmon_smc::{alergia, chain::Chain, check, prop};
    let text = String::from_utf8_lossy(bytes);
    let mut ok = false;
    let chain = Chain::from_dot("c.dot", &text).ok();
    for line in text.lines() {
        let Ok(p) = prop::parse(line) else { continue };
        ok = true;
        // (Bounded properties only: an unbounded one on a chain whose way to the target has a
        // probability like 1e-300 is correct but takes as long as that says.)
        let bounded = match &p {
            prop::Prop::Next(_) => true,
            prop::Prop::Until { bound, .. } => bound.is_some_and(|b| b <= 50),
        };
        if let (Some(c), true) = (&chain, bounded) {
            let _ = check::exact(c, &p);
            let dead = check::dead_states(c, &p);
            let mut rng = rvmon_core::rng::SplitMix(1);
            for _ in 0..20 {
                let _ = check::sample(c, &p, &dead, &mut rng);
            }
        }
    }
    let seqs: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|t| !t.is_empty())
        .collect();
    ok |= alergia::learn(&seqs, 0.05).is_ok();
    ok |= alergia::learn_mdp(&seqs, 0.05).is_ok();
    ok || chain.is_some()
}

/// An R2U2 trace, by name and by position: read to its end or refused with a place.
fn r2u2_trace(bytes: &[u8]) -> bool {
    use rvmon_core::event::{Event, EventSource, ValType};
    use rvmon_trace::r2u2::{Columns, R2u2Events};
    let inputs = [
        ("a0".to_string(), ValType::Int),
        ("a1".to_string(), ValType::Float),
    ];
    let mut any = false;
    for columns in [Columns::ByName, Columns::ByPosition] {
        let mut source = R2u2Events::new(bytes, "t.csv", &inputs, columns);
        let mut ev = Event::default();
        while let Ok(true) = source.next_event(&mut ev) {
            any = true;
        }
    }
    any
}
