//! The light lane: work that takes a statement or two (`/healthz`, and
//! looking up an answer already made for the current data generation)
//! runs on threads and connections of its own, so that it never waits
//! behind page builds for a database place ([`super::BUSY_CONNECTIONS`])
//! or a blocking thread ([`super::BLOCKING_THREADS`]). 32 viewers of a
//! large submission's parts had pushed `/healthz` and a kept comparison
//! to over a second.
//!
//! Only work bounded to a few statements belongs here: anything that
//! reads rows in proportion to the data goes through
//! [`super::state::AppState::with_conn`].

use std::cell::Cell;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rusqlite::Connection;
use tokio::sync::{mpsc, oneshot};

use super::state::{open_counted, STATEMENTS};
use super::{AppError, Role, WebOptions};
use crate::limits::{LIGHT_QUEUE, LIGHT_THREADS};
use crate::store;

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// The threads of the light lane; they end, closing their connections,
/// when it is dropped.
pub struct LightLane {
    jobs: Option<mpsc::Sender<Job>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl LightLane {
    /// Starts [`LIGHT_THREADS`] threads, each with a connection to the
    /// existing database at `db_path`.
    pub fn start(db_path: &Path, options: &WebOptions) -> Result<Self, store::StoreError> {
        let (jobs, queue) = mpsc::channel::<Job>(LIGHT_QUEUE);
        let queue = Arc::new(Mutex::new(queue));
        let mut threads = Vec::with_capacity(LIGHT_THREADS);
        for n in 0..LIGHT_THREADS {
            let conn = open_counted(db_path, options, false)?;
            let (queue, db_path, options) =
                (Arc::clone(&queue), db_path.to_owned(), options.clone());
            let thread = std::thread::Builder::new()
                .name(format!("benchlog-light-{n}"))
                .spawn(move || serve_light_work(conn, &queue, &db_path, &options))
                .map_err(store::StoreError::Thread)?;
            threads.push(thread);
        }
        Ok(LightLane {
            jobs: Some(jobs),
            threads,
        })
    }

    /// Runs `work` on a light thread's connection; also gives the
    /// statements it ran.
    pub async fn run<T, F>(&self, work: F) -> Result<(T, u64), AppError>
    where
        F: FnOnce(&mut Connection) -> T + Send + 'static,
        T: Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let before = STATEMENTS.with(Cell::get);
            let result = work(conn);
            let _ = answer.send((result, STATEMENTS.with(Cell::get) - before));
        });
        let jobs = self.jobs.as_ref().context("the light lane has stopped")?;
        jobs.send(job)
            .await
            .ok()
            .context("the light lane has stopped")?;
        Ok(answered.await.context("a light task failed")?)
    }
}

impl Drop for LightLane {
    /// Waits for the threads to close their connections: a connection of
    /// this process still open on the file when another opens it lends
    /// the newcomer its descriptor (SQLite reuses them per file), write
    /// access included, whatever the file's mode has become since.
    fn drop(&mut self) {
        drop(self.jobs.take());
        let current = std::thread::current().id();
        for thread in self.threads.drain(..) {
            // The last holder of the state may be a light job itself.
            if thread.thread().id() != current {
                let _ = thread.join();
            }
        }
    }
}

fn serve_light_work(
    mut conn: Connection,
    queue: &Mutex<mpsc::Receiver<Job>>,
    db_path: &Path,
    options: &WebOptions,
) {
    loop {
        let job = {
            let Ok(mut queue) = queue.lock() else { return };
            queue.blocking_recv()
        };
        let Some(job) = job else { return };
        if let Role::Replica { .. } = options.role {
            store::forget_pages(&conn);
        } else if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            // One opened while the file was read-only stays so (see
            // AppState::give_back): open anew, in case it can write again.
            if let Ok(fresh) = open_counted(db_path, options, false) {
                conn = fresh;
            }
        }
        job(&mut conn);
    }
}
