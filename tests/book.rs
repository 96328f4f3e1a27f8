//! The generated book pages (one per rule, the rule index, the configuration
//! reference) are current. `TRAINLINT_WRITE_BOOK=1 cargo test --test book`
//! rewrites them.

mod common;

const BEGIN: &str = "<!-- rules: generated -->\n";
const END: &str = "<!-- /rules -->\n";

#[test]
fn generated_pages_are_current() {
    let write = std::env::var_os("TRAINLINT_WRITE_BOOK").is_some_and(|v| v == "1");
    let book = common::repo().join("book/src");
    let mut stale = Vec::new();
    for (path, content) in trainlint::docs::pages() {
        let file = book.join(&path);
        if write {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &content).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(content.as_str()) {
            stale.push(path);
        }
    }
    let summary_path = book.join("SUMMARY.md");
    let summary = std::fs::read_to_string(&summary_path).unwrap();
    let (before, rest) = summary.split_once(BEGIN).expect("SUMMARY.md has the generated-rules markers");
    let (_, after) = rest.split_once(END).expect("SUMMARY.md closes the generated rules");
    let expected = format!("{before}{BEGIN}{}{END}{after}", trainlint::docs::summary_rules());
    if write {
        std::fs::write(&summary_path, &expected).unwrap();
    } else if summary != expected {
        stale.push("SUMMARY.md".into());
    }
    assert!(stale.is_empty(), "stale book pages (run `TRAINLINT_WRITE_BOOK=1 cargo test --test book`): {stale:?}");
}

/// Every page the summary names exists, and every rule's URL has its page.
#[test]
fn summary_links_resolve() {
    let book = common::repo().join("book/src");
    let summary = std::fs::read_to_string(book.join("SUMMARY.md")).unwrap();
    for link in summary.split("](").skip(1).map(|s| s.split(')').next().unwrap()) {
        assert!(book.join(link).is_file(), "SUMMARY.md links to missing {link}");
    }
    for rule in trainlint::rules::codes::ALL {
        assert!(book.join(format!("rules/{}.md", rule.code)).is_file(), "{}", rule.code);
    }
}
