//! Any bytes, read as text the way benchlog reads input, must parse without
//! panicking, and what comes out must point inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let line_count = text.split('\n').count();
    let doc = parsers::parse(&text);
    for run in &doc.runs {
        assert!(run.lines[0] >= 1 && run.lines[0] <= run.lines[1] && run.lines[1] <= line_count);
        for result in &run.results {
            assert!(result.value.is_finite());
            assert!(result.line >= run.lines[0] && result.line <= run.lines[1]);
        }
    }
    for miss in &doc.unparsed {
        assert!(miss.line >= 1 && miss.line <= line_count);
    }
});
