//! The queue between an import's reading thread and its writer.

use crate::limits::{QUEUE, QUEUE_BYTES};

/// What a queued item holds of text: what the queue counts against
/// [`QUEUE_BYTES`].
pub trait Held {
    fn held_bytes(&self) -> usize;
}

/// The queue between an import's reading thread and its writer: at most
/// [`QUEUE`] steps, and [`QUEUE_BYTES`] of the text they hold (a step
/// larger than that goes alone), so what is read ahead of the writer is
/// bounded in bytes as well as in steps: 64 messages of 64 MiB each
/// could otherwise wait at once.
pub fn queue<T: Held>() -> (Sender<T>, Receiver<T>) {
    let (sender, receiver) = std::sync::mpsc::sync_channel(QUEUE);
    let budget = std::sync::Arc::new(Budget::default());
    let sender = Sender {
        sender,
        budget: budget.clone(),
    };
    (sender, Receiver { receiver, budget })
}

/// The bytes held by the steps in a [`queue`], and whether its receiver
/// is gone (a sender waiting for room then gives up).
#[derive(Default)]
struct Budget {
    held: std::sync::Mutex<(usize, bool)>,
    freed: std::sync::Condvar,
}

impl Budget {
    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, bool)> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

pub struct Sender<T> {
    sender: std::sync::mpsc::SyncSender<(T, u64, usize)>,
    budget: std::sync::Arc<Budget>,
}

impl<T: Held> Sender<T> {
    /// Sends a step with the on-disk bytes it accounts for, once the queue
    /// has room for its text; errs when the writer is gone.
    pub fn send(&self, (step, on_disk): (T, u64)) -> Result<(), ()> {
        let bytes = step.held_bytes();
        let mut held = self.budget.lock();
        while held.0 > 0 && held.0 + bytes > QUEUE_BYTES && !held.1 {
            held = self
                .budget
                .freed
                .wait(held)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        if held.1 {
            return Err(());
        }
        held.0 += bytes;
        drop(held);
        self.sender.send((step, on_disk, bytes)).map_err(|_| ())
    }
}

pub struct Receiver<T> {
    receiver: std::sync::mpsc::Receiver<(T, u64, usize)>,
    budget: std::sync::Arc<Budget>,
}

impl<T> Receiver<T> {
    pub fn recv(&self) -> Result<(T, u64), std::sync::mpsc::RecvError> {
        let (step, on_disk, bytes) = self.receiver.recv()?;
        self.release(bytes);
        Ok((step, on_disk))
    }

    pub fn recv_timeout(
        &self,
        timeout: std::time::Duration,
    ) -> Result<(T, u64), std::sync::mpsc::RecvTimeoutError> {
        let (step, on_disk, bytes) = self.receiver.recv_timeout(timeout)?;
        self.release(bytes);
        Ok((step, on_disk))
    }

    fn release(&self, bytes: usize) {
        self.budget.lock().0 -= bytes;
        self.budget.freed.notify_all();
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.budget.lock().1 = true;
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queued item holding `bytes` of text.
    struct Text(usize);

    impl Held for Text {
        fn held_bytes(&self) -> usize {
            self.0
        }
    }

    fn text_of(bytes: usize) -> Text {
        Text(bytes)
    }

    #[test]
    fn the_queue_holds_at_most_its_bytes_but_a_large_step_goes_alone() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (sender, receiver) = queue::<Text>();
        let half = QUEUE_BYTES / 2 + 1;
        let sent = AtomicUsize::new(0);
        // Waits for the sender to have sent `n`, then a little more: it
        // must not send another meanwhile.
        let sent_just = |n: usize| {
            while sent.load(Ordering::SeqCst) < n {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            sent.load(Ordering::SeqCst)
        };
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for step in [text_of(half), text_of(half), text_of(2 * QUEUE_BYTES)] {
                    sender.send((step, 0)).unwrap();
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            });
            // The second half does not fit beside the first.
            assert_eq!(sent_just(1), 1);
            receiver.recv().unwrap();
            // Nor the large one beside the second; alone, it goes.
            assert_eq!(sent_just(2), 2);
            receiver.recv().unwrap();
            let (step, _) = receiver.recv().unwrap();
            assert_eq!(step.held_bytes(), 2 * QUEUE_BYTES);
        });
        assert_eq!(sender.budget.lock().0, 0);
    }

    #[test]
    fn a_sender_waiting_for_room_gives_up_when_the_writer_is_gone() {
        let (sender, receiver) = queue::<Text>();
        sender.send((text_of(QUEUE_BYTES), 0)).unwrap();
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| sender.send((text_of(1), 0)));
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(receiver);
            assert_eq!(waiting.join().unwrap(), Err(()));
        });
    }
}
