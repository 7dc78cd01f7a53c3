//! Inputs read already ([`crate::intake::read`]): an upload's parts, the
//! demo's logs, messages prepared by a test.

use std::ops::ControlFlow;

use super::step::{FileEnd, Sink, Step, Title};
use super::Source;
use crate::intake::{Input, MailFailure, PreparedMail};

/// Inputs, each with its name and how a text of it is titled, handed
/// over in order (each input's messages one by one).
#[derive(Default)]
pub struct Inputs {
    inputs: Vec<(String, Input, Title)>,
}

impl Inputs {
    /// Adds an input named `name` (a file name, "upload").
    pub fn push(&mut self, name: String, input: Input, title: Title) {
        self.inputs.push((name, input, title));
    }

    /// One input of prepared messages (or why they could not be), named
    /// as the messages are.
    pub fn mails(mails: Vec<Result<PreparedMail, MailFailure>>) -> Inputs {
        let mut inputs = Inputs::default();
        inputs.push("mails".to_owned(), Input::Mails(mails), Title::Named);
        inputs
    }
}

impl Source for Inputs {
    fn read(&mut self, sink: &mut Sink<'_>) -> ControlFlow<()> {
        // Each input is handed over, not copied: it is dropped once stored.
        for (name, input, title) in std::mem::take(&mut self.inputs) {
            let shown = name.clone();
            match input {
                Input::Text(text, document) => {
                    let on_disk = text.len() as u64;
                    let document = Box::new(document);
                    let step = Step::Text {
                        name,
                        shown,
                        hashes: Box::new(crate::ingest::TextHashes::of(&text)),
                        text,
                        document,
                        title,
                    };
                    sink.send(step, on_disk)?;
                }
                Input::Mails(mails) => {
                    let messages = mails.len();
                    for mail in mails {
                        let (step, raw_len) = match mail {
                            Ok(prepared) => {
                                let raw_len = prepared.raw_len as u64;
                                (Step::Mail(Box::new(prepared)), raw_len)
                            }
                            Err(failure) => (Step::MailFailed(failure), 0),
                        };
                        sink.send(step, raw_len)?;
                    }
                    let end = FileEnd::Mail { messages };
                    sink.send(Step::FileEnd { shown, end }, 0)?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}
