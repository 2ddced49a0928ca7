//! Commands whose whole effect — output and files written — provably
//! depends on nothing but the workspace's files.
//!
//! A **contained** command is a pipeline or list (`|`, `&&`, `||`, `;`) of
//! simple commands, each either read-only ([`super::read_only`]) or one of
//! a few utilities that write only where their operands say and do the
//! same thing every time:
//!
//! - `mkdir` (with `-p` at most), `chmod MODE FILE...` (no options),
//!   `tee FILE...` (no options);
//! - `test` with the file tests `-e -f -d -s -x -r -w`, string and number
//!   comparisons (no `-nt`/`-ot`: they compare times);
//! - `stat -c FORMAT` with only the permission, name and type fields
//!   (`%A %a %n %F`);
//! - `awk` with at most `-F SEP` and a program that can neither run a
//!   command, read a file nor take a random number or the time (none of
//!   `system getline rand srand systime strftime mktime ENVIRON PROCINFO
//!   ARGV ARGC @`, no `|` but `||`, no string starting with `/`);
//!
//! with output redirected (`> FILE`, `>> FILE`) only to files inside the
//! workspace, and words as the read-only commands' (no `$`, backquotes,
//! `~`, `..` or absolute paths; a writing utility's words hold no glob at
//! all). What such a command writes is read back from the folder it ran
//! in (see [`super::reuse`]), so the list needs to prove determinism and
//! containment only: a write the list did not foresee is still seen.

use super::read_only::{reads_only, stays_inside};
use super::shell_words::lex;

/// Whether `command` is contained (see the module doc). `false` means
/// "not known to be", not "is not".
pub fn is_contained(command: &str) -> bool {
    let Some(commands) = lex(command) else {
        return false;
    };
    commands.iter().all(|simple| {
        simple
            .targets
            .iter()
            .all(|t| stays_inside(t) && !t.starts_with('-') && !t.contains(['*', '?']))
            && (reads_only(&simple.words) || !simple.globs() && writes_contained(&simple.texts()))
    })
}

/// Whether a simple command is one of the writing utilities of the module
/// doc, used as it allows.
fn writes_contained(words: &[String]) -> bool {
    let Some((name, args)) = words.split_first() else {
        return false;
    };
    let operand = |a: &String| !a.starts_with('-') && stays_inside(a);
    match name.as_str() {
        "mkdir" => args
            .iter()
            .all(|a| a == "-p" || a == "--parents" || operand(a)),
        "tee" => args.iter().all(operand),
        "chmod" => match args.split_first() {
            Some((mode, files)) => is_mode(mode) && !files.is_empty() && files.iter().all(operand),
            None => false,
        },
        "test" => args
            .iter()
            .all(|a| TEST_OPERATORS.contains(&a.as_str()) || operand(a)),
        "stat" => stat_allowed(args, &operand),
        "awk" => awk_allowed(args, &operand),
        _ => false,
    }
}

/// The `test` operators whose answer depends only on names, kinds,
/// permissions and contents.
const TEST_OPERATORS: [&str; 17] = [
    "-e", "-f", "-d", "-s", "-x", "-r", "-w", "-z", "-n", "=", "!=", "-eq", "-ne", "-lt", "-le",
    "-gt", "-ge",
];

/// A `chmod` mode: octal, or symbolic (`u+x`, `a-w,g=r`).
fn is_mode(mode: &str) -> bool {
    !mode.is_empty()
        && !mode.starts_with('-')
        && mode.chars().all(|c| "ugoa+-=rwxXst01234567,".contains(c))
}

/// `stat -c FORMAT FILE...` with a format of permissions, names and kinds.
fn stat_allowed(args: &[String], operand: &dyn Fn(&String) -> bool) -> bool {
    let (format, files) = match args {
        [flag, format, files @ ..] if flag == "-c" => (format.as_str(), files),
        [flag, files @ ..] => match flag
            .strip_prefix("--format=")
            .or_else(|| flag.strip_prefix("-c").filter(|f| !f.is_empty()))
        {
            Some(format) => (format, files),
            None => return false,
        },
        [] => return false,
    };
    let mut fields = format.split('%').skip(1);
    let fields_ok = fields.all(|f| f.starts_with(['A', 'a', 'n', 'F']));
    fields_ok && !files.is_empty() && files.iter().all(operand)
}

/// Words an awk program may not hold (see the module doc).
const AWK_FORBIDDEN: [&str; 12] = [
    "system", "getline", "rand", "systime", "strftime", "mktime", "ENVIRON", "PROCINFO", "ARGV",
    "ARGC", "@", "\"/",
];

/// `awk [-F SEP] PROGRAM [FILE | NAME=VALUE]...` with a safe program.
fn awk_allowed(args: &[String], operand: &dyn Fn(&String) -> bool) -> bool {
    let rest = match args {
        [flag, _, rest @ ..] if flag == "-F" => rest,
        [flag, rest @ ..] if flag.starts_with("-F") && flag.len() > 2 => rest,
        _ => args,
    };
    let Some((program, files)) = rest.split_first() else {
        return false;
    };
    if program.starts_with('-') {
        return false;
    }
    let pipes = program.matches('|').count();
    let or_pipes = program.matches("||").count() * 2;
    !AWK_FORBIDDEN.iter().any(|f| program.contains(f))
        && pipes == or_pipes
        && files.iter().all(operand)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contained_commands() {
        for command in [
            "mkdir -p out",
            "tail -n +2 sales.csv | wc -l | tr -d ' ' > out/rows.txt",
            "awk -F, 'NR>1 {u[$2]+=$4} END {for (r in u) print r\",\"u[r]}' sales.csv | sort > out/units_by_region.csv",
            "awk -F, 'NR>1 {t+=$4*$5} END {print \"total \" t}' sales.csv > out/revenue.txt",
            "awk -F, 'NR>1 {u[$3]+=$4} END {for (p in u) print u[p], p}' sales.csv | sort -rn | head -1 | cut -d' ' -f2 > out/top_product.txt",
            "chmod +x pipeline.sh && stat -c %A pipeline.sh",
            "test -x pipeline.sh",
            "echo hi >> log.txt",
            "cat a.py | tee b.py",
            "ls",
            "grep x *.py > hits.txt",
        ] {
            assert!(is_contained(command), "{command}");
        }
    }

    #[test]
    fn anything_else_is_not() {
        for command in [
            "",
            "> out",
            "echo x >",
            "echo x > /tmp/x",
            "echo x > ../x",
            "echo x>out",
            "echo x > out*",
            "echo x > -n",
            "echo x 1> out",
            "cat < a",
            "mkdir -m 777 out",
            "mkdir out*",
            "chmod -R +x .",
            "chmod +x",
            "chmod u+x /bin/sh",
            "test a -nt b",
            "test -t 1",
            "stat a",
            "stat -c %y a",
            "stat -c '%A %Y' a",
            "awk 'BEGIN {print rand()}'",
            "awk 'BEGIN {srand(); print 1}'",
            "awk 'BEGIN {system(\"ls\")}'",
            "awk '{print | \"sort\"}' a",
            "awk 'BEGIN {getline x < \"f\"}'",
            "awk 'BEGIN {print ENVIRON[\"HOME\"]}'",
            "awk 'BEGIN {print PROCINFO[\"pid\"]}'",
            "awk 'BEGIN {ARGV[1] = \"f\"}' a",
            "awk 'BEGIN {print > \"/tmp/x\"}'",
            "awk -f prog.awk a",
            "awk '{print}' /etc/passwd",
            "tee /tmp/x",
            "tee -a x",
            "touch a",
            "rm a",
            "cp a b",
            "date > now.txt",
            "echo $HOME > x",
            "python3 x.py",
        ] {
            assert!(!is_contained(command), "{command}");
        }
    }
}
