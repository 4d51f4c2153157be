//! `man/*.1` are generated from the clap definitions; this test keeps them current.
//! Regenerate with `LOGCLEAN_UPDATE_MAN=1 cargo test --test man_page`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::path::PathBuf;

fn render(cmd: clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .expect("render man page");
    out
}

fn pages() -> Vec<(String, Vec<u8>)> {
    // `--version` names the commit built from (build.rs); the committed pages carry the version
    // alone, as `-V` prints it, so they do not change with every commit.
    let root = logclean::cli::command().long_version(None::<&str>);
    let mut pages = vec![("logclean.1".to_string(), render(root.clone()))];
    for sub in root.get_subcommands() {
        // clap_mangen titles a page with the command's name: give subcommands `logclean-<verb>`.
        let name: &'static str = Box::leak(format!("logclean-{}", sub.get_name()).into_boxed_str());
        pages.push((format!("{name}.1"), render(sub.clone().name(name))));
    }
    pages
}

#[test]
fn man_pages_are_current() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("man");
    let update = std::env::var_os("LOGCLEAN_UPDATE_MAN").is_some();
    for (name, content) in pages() {
        let path = dir.join(&name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &content).unwrap();
            continue;
        }
        let on_disk = std::fs::read(&path).unwrap_or_default();
        assert!(
            on_disk == content,
            "{} is out of date: run LOGCLEAN_UPDATE_MAN=1 cargo test --test man_page",
            path.display()
        );
    }
}

#[test]
fn completions_generate_for_every_shell() {
    use clap_complete::Shell;
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut logclean::cli::command(), "logclean", &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("inspect"),
            "{shell:?} completion lacks the inspect command"
        );
    }
}
