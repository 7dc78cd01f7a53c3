//! The built binary, as users and scripts call it (Contract 4).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::support::{repo_path, SEED_000};

fn benchlog(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .args(args)
        .env_remove("BENCHLOG_DB")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "benchlog failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn parse_json_gives_contract_1() {
    let seed = repo_path(SEED_000);
    let json: serde_json::Value = serde_json::from_str(&stdout(&benchlog(&[
        "parse",
        seed.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 17);
    let ule = runs
        .iter()
        .find(|r| r["label"] == "ULE + libthr + TSC" && r["threads"] == 100)
        .expect("the ULE + libthr + TSC run with 100 clients");
    assert_eq!(ule["tool"], "super-smack");
    assert_eq!(ule["quote_depth"], 2);
    assert_eq!(ule["author"], "Steven Hartland");
    assert_eq!(ule["attrs"]["scheduler"], "ULE");
    let q_per_s = ule["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["item"] == "select_index" && r["metric"] == "q_per_s")
        .unwrap();
    assert_eq!(q_per_s["value"], 28581.18);
    assert!(json["messages"].as_array().is_some() && json["unparsed"].as_array().is_some());
}

#[test]
fn parse_reads_standard_input_and_summarises() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .args(["parse", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"super-smack -d mysql select-key.smack 10 10000\n\
              Query Barrel Report for client smacker1\n\
              connect: max=4ms min=1ms avg= 2ms from 10 clients\n\
              Query_type num_queries max_time min_time q_per_s\n\
              select_index 200000 0 0 22061.88\n",
        )
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let text = stdout(&output);
    assert!(text.contains("1 runs"), "{text}");
    assert!(text.contains("threads=10"), "{text}");
    assert!(text.contains("q_per_s=22061.88"), "{text}");
}

#[test]
fn parse_refuses_binary_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("core");
    std::fs::write(&path, b"\x7fELF\x00\x00").unwrap();
    let output = benchlog(&["parse", path.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("binary"));
}

#[test]
fn ingest_then_export_csv() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.db");
    let db = db.to_str().unwrap();
    // A folder of its own (fixtures/ grows), nested to check the recursion,
    // with a golden .json beside the log as in fixtures/.
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(logs.join("super-smack")).unwrap();
    std::fs::copy(repo_path(SEED_000), logs.join("super-smack/seed-000.txt")).unwrap();
    std::fs::write(logs.join("super-smack/seed-000.expected.json"), "{}").unwrap();
    let logs = logs.to_str().unwrap();

    let first = stdout(&benchlog(&["ingest", "--db", db, logs]));
    assert!(
        first.contains("seed-000.txt: submission 1 (17 runs"),
        "{first}"
    );
    assert!(
        first.contains("1 added, 0 already stored, 0 failed"),
        "{first}"
    );
    let again = stdout(&benchlog(&["ingest", "--db", db, logs]));
    assert!(again.contains("already stored as submission 1"), "{again}");
    assert!(again.contains("0 added"), "{again}");

    let csv = stdout(&benchlog(&["export", "--db", db, "--csv"]));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for column in [
        "tool",
        "test",
        "label",
        "threads",
        "item",
        "metric",
        "value",
        "unit",
        "scheduler",
        "thread_lib",
    ] {
        assert!(
            header.contains(&column),
            "missing column {column}: {header:?}"
        );
    }
    // One row per result: 17 runs, each with connect and query rows.
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() > 17 * 4, "{} rows", rows.len());
    assert!(csv.contains(",18624.6,"), "{csv}");

    // Filters without a metric keep one row per result.
    let filtered = stdout(&benchlog(&[
        "export",
        "--db",
        db,
        "--csv",
        "--tool",
        "super-smack",
        "--item",
        "select_index",
        "--where",
        "scheduler:ULE",
    ]));
    let rows: Vec<&str> = filtered.lines().skip(1).collect();
    assert_eq!(rows.len(), 4 * 4, "{filtered}");
    assert!(rows.iter().all(|row| row.contains(",ULE,")), "{filtered}");

    // Tool and metric make it the comparison: one row per point, repeats
    // as mean, min, max and n.
    let compared = stdout(&benchlog(&[
        "export",
        "--db",
        db,
        "--csv",
        "--tool",
        "super-smack",
        "--metric",
        "q_per_s",
        "--item",
        "select_index",
        "--where",
        "scheduler:ULE",
    ]));
    let rows: Vec<&str> = compared.lines().skip(1).collect();
    // Without by, one series per configuration: ULE / TSC with and
    // without the three patches, at 10 and 100 clients.
    assert_eq!(rows.len(), 4, "{compared}");
    for values in [
        ",28581.18,28581.18,28581.18,1,",
        ",29942.1,29942.1,29942.1,1,",
    ] {
        assert!(compared.contains(values), "{values} in {compared}");
    }

    // The database can also come from BENCHLOG_DB.
    let from_env = Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .args(["export", "--csv", "--metric", "q_per_s"])
        .env("BENCHLOG_DB", db)
        .output()
        .unwrap();
    assert!(stdout(&from_env).contains(",28581.18,"));
}

/// A run quoted in a reply is stored as the reply's own run, a copy of
/// the first: the export tells its rows apart by `copy_of`, the id of
/// the run it copies (empty for the original).
#[test]
fn export_names_the_run_a_copy_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.db");
    let db = db.to_str().unwrap();
    let post = "Hi all,\n\nkern.sched.name: ULE\nsuper-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";
    let quoted: String = post.lines().map(|line| format!("> {line}\n")).collect();
    let reply = format!("Subject: Re: ULE\n\nSame here:\n\n{quoted}");
    for (name, text) in [("post.txt", post), ("reply.txt", reply.as_str())] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        stdout(&benchlog(&["ingest", "--db", db, path.to_str().unwrap()]));
    }
    let csv = stdout(&benchlog(&["export", "--db", db, "--csv"]));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|c| c == name).unwrap();
    let (submission, run, copy_of, item, metric) = (
        column("submission_id"),
        column("run_id"),
        column("copy_of"),
        column("item"),
        column("metric"),
    );
    // The q_per_s row of each submission: (submission, run_id, copy_of).
    let rows: Vec<(String, String, String)> = reader
        .records()
        .map(Result::unwrap)
        .filter(|row| &row[item] == "select_index" && &row[metric] == "q_per_s")
        .map(|row| {
            (
                row[submission].to_owned(),
                row[run].to_owned(),
                row[copy_of].to_owned(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 2, "{csv}");
    let (original, copy) = (&rows[0], &rows[1]);
    assert_eq!((original.0.as_str(), copy.0.as_str()), ("1", "2"), "{csv}");
    assert_ne!(original.1, copy.1, "{csv}");
    assert_eq!(original.2, "", "the original copies nothing: {csv}");
    assert_eq!(
        copy.2, original.1,
        "the copy names the original's run: {csv}"
    );
}

#[test]
fn export_explains_mistakes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.db");
    let db = db.to_str().unwrap();
    let seventeen_wheres: String = (0..17)
        .map(|i| format!("where=scheduler:v{i}&"))
        .collect::<String>()
        + "tool=super-smack&metric=q_per_s";
    for (args, message) in [
        (vec!["export", "--db", db], "--csv"),
        (
            vec!["export", "--db", db, "--csv", "--tool", "nosuchtool"],
            "unknown tool",
        ),
        (
            vec!["export", "--db", db, "--csv", "--where", "scheduler"],
            "where=",
        ),
        // The limits of /compare's query, through the same parser.
        (
            [
                &["export", "--db", db, "--csv", "--tool", "super-smack"][..],
                &["--metric", "q_per_s", "--by", "os,cpu,timer,malloc"],
                &["--by", "scheduler", "--by", "thread_lib", "--by", "patches"],
                &["--by", "label", "--by", "author"],
            ]
            .concat(),
            "at most 8",
        ),
        (
            vec!["export", "--db", db, "--csv", "--query", &seventeen_wheres],
            "at most 16",
        ),
    ] {
        let output = benchlog(&args);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// A mistyped `--db` is refused with a message, and no empty database is
/// left behind (it was created, exported nothing and exited 0).
#[test]
fn export_refuses_a_database_that_is_not_there() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo.db");
    let args = [
        "export",
        "--db",
        typo.to_str().unwrap(),
        "--csv",
        "--tool",
        "super-smack",
        "--metric",
        "q_per_s",
    ];
    let output = benchlog(&args);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("typo.db"), "{stderr}");
    assert!(!typo.exists(), "no database may be made");
}

/// Runs `benchlog args`, failing the test when it takes longer than 60 s
/// (a read of a FIFO or /dev/zero never ends).
fn benchlog_promptly(args: &[&std::ffi::OsStr]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .args(args)
        .env_remove("BENCHLOG_DB")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("benchlog {args:?} did not return");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn ingest_refuses_fifos_and_devices_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.db");
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for path in [fifo.as_path(), std::path::Path::new("/dev/zero")] {
        let output = benchlog_promptly(&[
            "ingest".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            path.as_os_str(),
        ]);
        let parsed = benchlog_promptly(&["parse".as_ref(), path.as_os_str()]);
        assert!(!parsed.status.success(), "parse {path:?}");
        assert!(
            String::from_utf8_lossy(&parsed.stderr).contains("is not a regular file"),
            "parse {path:?}"
        );
        assert!(!output.status.success(), "{path:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "{} is not a regular file (a FIFO, device or socket); benchlog reads files and folders",
                path.display()
            )),
            "{path:?}: {stderr}"
        );
    }

    // In a folder, the FIFO is that file's failure; the others are read.
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::copy(repo_path(SEED_000), logs.join("seed-000.txt")).unwrap();
    let made = Command::new("mkfifo")
        .arg(logs.join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let output = benchlog_promptly(&[
        "ingest".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        logs.as_os_str(),
    ]);
    assert!(!output.status.success());
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("seed-000.txt: submission 1 (17 runs"), "{out}");
    assert!(out.contains("1 added, 0 already stored, 1 failed"), "{out}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("pipe is not a regular file"), "{stderr}");
}

/// `benchlog ingest --db mails/bench.db mails/` read the database among
/// the inputs: opened outside SQLite, and closed, it dropped the
/// import's own locks on it. It is skipped, and said so.
#[test]
fn ingest_skips_the_database_in_the_folder_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mails = dir.path().join("mails");
    std::fs::create_dir(&mails).unwrap();
    std::fs::copy(repo_path(SEED_000), mails.join("seed-000.txt")).unwrap();
    let db = mails.join("bench.db");
    let ingest = || {
        benchlog(&[
            "ingest",
            "--db",
            db.to_str().unwrap(),
            mails.to_str().unwrap(),
        ])
    };
    assert!(stdout(&ingest()).contains("seed-000.txt: submission 1 (17 runs"));
    // Now the database (and its log, while open) is in the folder.
    let again = ingest();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("bench.db: skipped, it is the database itself"),
        "{stderr}"
    );
    assert!(!stderr.contains("error"), "{stderr}");
    assert!(stdout(&again).contains("seed-000.txt: already stored as submission 1"));
}

/// `RUST_LOG` asks for more than `info` and gets it: the server's
/// requests are logged at `debug` by tower-http's trace layer.
#[test]
fn rust_log_turns_on_debug_lines() {
    use std::io::{BufRead, BufReader, Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("log.db"))
        .env("NO_COLOR", "1")
        .env("RUST_LOG", "info,tower_http=debug")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let next = || lines.recv_timeout(std::time::Duration::from_secs(30)).ok();
    let addr = std::iter::from_fn(next)
        .find_map(|line| {
            let at = line.find("serving http://")? + "serving http://".len();
            Some(line[at..].trim_end_matches('/').to_owned())
        })
        .expect("the server says where it listens");
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let debug =
        std::iter::from_fn(next).find(|line| line.contains("DEBUG") && line.contains("tower_http"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(debug.is_some(), "no debug line from tower_http");
}
