//! Files built into the binary (see `build.rs`), so that a copied or
//! installed `benchlog` serves its pages with their stylesheet and runs
//! its demo without the checkout it was built from. `--static-dir` and
//! `demo --fixtures` read folders instead, for development.

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The built-in file served at `/static/{path}`, if there is one.
pub fn static_file(path: &str) -> Option<&'static [u8]> {
    STATIC
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, bytes)| *bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stylesheet_and_every_example_log_are_built_in() {
        let css = static_file("style.css").expect("static/style.css is built in");
        assert_eq!(css, std::fs::read("static/style.css").unwrap());
        assert!(static_file("missing.css").is_none());
        let on_disk: Vec<String> = crate::intake::collect_input_files(&["fixtures".into()])
            .unwrap()
            .into_iter()
            .filter_map(|path| {
                let below = path.strip_prefix("fixtures").unwrap();
                example_logs::is_example_log(below).then(|| below.to_string_lossy().into_owned())
            })
            .collect();
        let built_in: Vec<String> = EXAMPLE_LOGS
            .iter()
            .map(|(name, _)| name.to_string())
            .collect();
        assert!(on_disk.len() > 400, "{}", on_disk.len());
        assert_eq!(built_in, on_disk);
        for (name, bytes) in EXAMPLE_LOGS {
            assert_eq!(
                *bytes,
                std::fs::read(format!("fixtures/{name}")).unwrap(),
                "{name}"
            );
        }
    }
}
