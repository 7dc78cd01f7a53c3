//! End to end in a real browser: headless Chromium, driven through
//! WebDriver (chromedriver), uses the real `benchlog serve` binary on
//! 127.0.0.1 the way a person would: paste a mail, review what was found,
//! draw the comparison by scheduler and thread library, download the CSV.
//!
//! It needs /usr/bin/chromium and /usr/bin/chromedriver, so it is
//! ignored unless asked for (`--include-ignored`, as `.ci/run` does), and
//! then a missing browser is a failure. Screenshots go to
//! `BENCHLOG_SCREENSHOT_DIR` when it is set (`docs` refreshes the README's
//! pictures), else below the target directory, so that running the tests
//! never changes tracked files.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, ensure, Context, Result};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use tempfile::TempDir;

use crate::support::seed_000;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 900;
/// How long to wait for a process to answer or an element to appear. Long,
/// because CI machines are slow and shared; polling returns as soon as the
/// thing is there.
const PATIENCE: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(100);

/// The series of seed 000's select_index q/s by scheduler and thread
/// library that carry names; three more hold the runs that lack one or both.
const SEED_002: &str = "fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt";
const NAMED_SERIES: [&str; 3] = ["4BSD / libpthread", "4BSD / libthr", "ULE / libthr"];

#[tokio::test]
#[ignore = "needs Chromium and chromedriver (apt-get install chromium chromium-driver); .ci/run runs it"]
async fn browser_pastes_seed_000_and_compares_schedulers() -> Result<()> {
    if let Some(missing) = [CHROMEDRIVER, CHROMIUM]
        .into_iter()
        .find(|path| !Path::new(path).exists())
    {
        bail!("{missing} is missing: apt-get install chromium chromium-driver");
    }

    let temp = tempfile::tempdir()?;
    let server = Server::start(&temp)?;
    let driver = ChromeDriver::start()?;
    let client = driver.session(&temp).await?;

    let shots = screenshot_dir()?;
    let outcome = walk_through(&client, &server.url, &shots).await;
    if outcome.is_err() {
        // What the browser showed when it went wrong, for whoever reads the log.
        if let Ok(png) = client.screenshot().await {
            let _ = std::fs::write(shots.join("e2e-failure.png"), png);
        }
        if let Ok(url) = client.current_url().await {
            eprintln!("the browser was at {url}");
        }
    }
    // Closing the session quits Chromium; the guards then stop chromedriver
    // and the server, also when the walk-through failed.
    let closed = client.close().await;
    outcome?;
    closed.context("closing the browser session")?;
    println!("screenshots in {}", shots.display());
    Ok(())
}

/// The user's path through the dashboard, checking each page on the way.
async fn walk_through(client: &Client, base: &str, shots: &Path) -> Result<()> {
    // Home: paste seed 000 and store it.
    paste_and_store(client, base, &seed_000()).await?;

    // The submission page: every run of the mail is listed.
    wait_for_url(client, "/submissions/").await?;
    let runs = wait_until(
        client,
        "the submission page to list its runs",
        |client| async move {
            let count = run_rows(&client).await?;
            Ok((count > 0).then_some(count))
        },
    )
    .await?;
    ensure!(
        runs == 17,
        "the submission page lists {runs} runs, expected 17"
    );
    save_screenshot(client, shots, "submission.png").await?;

    // A run's "edit" link opens its form (the browser holds the token).
    find_first(
        client,
        &["tr#run-2 a[href*=\"edit=2\"]"],
        "run 2's edit link",
    )
    .await?
    .click()
    .await?;
    wait_for_url(client, "edit=2").await?;
    let form = find_first(client, &["details#edit-run-2"], "run 2's edit form").await?;
    ensure!(
        form.attr("open").await?.is_some(),
        "run 2's edit form is closed after its edit link"
    );
    let label = find_first(
        client,
        &["details#edit-run-2 input[name=\"label\"]"],
        "run 2's label box",
    )
    .await?;
    ensure!(
        label.is_displayed().await?,
        "run 2's label box is not shown after its edit link"
    );

    // The comparison by scheduler and thread library.
    open_scheduler_comparison(client).await?;
    let legend = wait_until(client, "the chart's legend", |client| async move {
        let texts = svg_texts(&client).await?;
        let entries: Vec<String> = texts.into_iter().filter(|t| t.contains(" / ")).collect();
        Ok((!entries.is_empty()).then_some(entries))
    })
    .await?;
    let mut series = legend.clone();
    series.sort();
    series.dedup();
    ensure!(
        series.len() == 6,
        "the chart shows {} series, expected 6: {series:?}",
        series.len()
    );
    for name in NAMED_SERIES {
        ensure!(
            series.iter().any(|s| s == name),
            "the legend lacks {name:?}: {series:?}"
        );
    }
    save_screenshot(client, shots, "compare.png").await?;

    // "4BSD / libthr" at 10 clients gathers ACPI-fast, TSC and TSC with
    // three patches: the page says they are no repeats and links the
    // comparison split by what differs.
    let notice = find_first(client, &["p.mixed-notice"], "the mixed-point notice").await?;
    let notice_text = notice.text().await?;
    ensure!(
        notice_text.contains("runs of several configurations")
            && notice_text.contains("timer")
            && notice_text.contains("patches"),
        "the mixed-point notice says: {notice_text}"
    );
    let split = find_first(client, &["p.mixed-notice a.split"], "the split link").await?;
    let split_href = split
        .prop("href")
        .await?
        .ok_or_else(|| anyhow!("the split link has no href"))?;
    ensure!(
        split_href.contains("by=timer") && split_href.contains("by=patches"),
        "the split link asks for another query: {split_href}"
    );

    // The CSV behind the page's link, fetched by the browser.
    let csv_link = find_first(
        client,
        &["a[href^=\"/compare.csv\"]", "a[href*=\"compare.csv?\"]"],
        "the CSV link",
    )
    .await?;
    let href = csv_link
        .prop("href")
        .await?
        .ok_or_else(|| anyhow!("the CSV link has no href"))?;
    ensure!(
        href.contains("by=scheduler") && href.contains("by=thread_lib"),
        "the CSV link asks for another query: {href}"
    );
    // Pinned to the data as it is now: the one submission stored.
    ensure!(
        href.contains("asof=1"),
        "the CSV link is not pinned to submission 1: {href}"
    );
    let csv = client
        .execute_async(
            "const [href, done] = arguments; \
             fetch(href).then(r => r.ok ? r.text() : 'HTTP ' + r.status).then(done, e => done(String(e)));",
            vec![json!(href)],
        )
        .await?;
    let csv = csv.as_str().unwrap_or_default();
    ensure!(
        csv.lines()
            .next()
            .is_some_and(|header| header.contains("scheduler") && header.contains("thread_lib")),
        "the CSV has a column per by-attribute: {csv:.300}"
    );
    ensure!(
        csv.contains("18624.6"),
        "the CSV lacks 18624.6: {csv:.2000}"
    );

    // Home again, now with the submission on it.
    find_first(client, &["a[href=\"/\"]"], "a link home")
        .await?
        .click()
        .await?;
    wait_for_url_path(client, "/").await?;
    find_first(
        client,
        &["a[href^=\"/submissions/\"]"],
        "the stored submission on the home page",
    )
    .await?;
    save_screenshot(client, shots, "home.png").await?;

    // Seed 002: three runs of each configuration at 64 threads. Against
    // the baseline each series gets a verdict, and one thread count each
    // makes the chart grouped bars.
    let seed_002 = std::fs::read_to_string(crate::support::repo_path(SEED_002))?;
    paste_and_store(client, base, &seed_002).await?;
    wait_for_url(client, "/submissions/").await?;
    client
        .goto(&format!(
            "{base}compare?tool=sysbench&metric=qps&item=total&by=label&baseline=Original"
        ))
        .await?;
    let verdicts = wait_until(client, "the verdicts in the table", |client| async move {
        verdict_texts(&client).await
    })
    .await?;
    ensure!(
        verdicts.len() == 2 && verdicts.iter().all(|v| v == "better"),
        "expected 'better' for both series against Original: {verdicts:?}"
    );
    let texts = svg_texts(client).await?;
    ensure!(
        texts.iter().any(|t| t == "64 threads"),
        "the single-x chart is not grouped bars: {texts:?}"
    );
    save_screenshot(client, shots, "compare-verdicts-bars.png").await?;
    png_carries_the_verdict(client, "+16.8% ± 4.3% better").await?;
    // The table under the chart: the intervals and the verdicts in words.
    client
        .execute(
            "document.querySelector('td.verdict').closest('table').scrollIntoView();",
            vec![],
        )
        .await?;
    save_screenshot(client, shots, "compare-verdicts-table.png").await?;

    // Seed 000 against 4BSD / libpthread: single runs, and points that
    // gather several setups (mixed), so no series is proven different
    // (hollow marks, dashed lines).
    client
        .goto(&format!(
            "{base}compare?tool=super-smack&item=select_index&metric=q_per_s&by=scheduler&by=thread_lib&where=submission:1&baseline=4BSD+%2F+libpthread"
        ))
        .await?;
    let verdicts = wait_until(client, "seed 000's verdicts", |client| async move {
        verdict_texts(&client).await
    })
    .await?;
    ensure!(
        verdicts.iter().all(|v| v.starts_with("no difference")
            || v == "too few runs"
            || v == "mixed configurations"),
        "seed 000 against 4BSD / libpthread proves no difference: {verdicts:?}"
    );
    save_screenshot(client, shots, "compare-no-difference.png").await?;

    baseline_on_the_ready_comparison(client, base).await?;
    crowded_cjk_chart(client, base, shots).await?;
    versions_along_x(client, base).await?;
    Ok(())
}

/// 14 configurations named in Chinese, Japanese and Korean (submission 3,
/// docs/seeds/cjk-14-series.txt) against the first: every name is in the
/// chart, every proven difference of the table is labelled on it, and
/// its PNG is drawn.
async fn crowded_cjk_chart(client: &Client, base: &str, shots: &Path) -> Result<()> {
    let text = std::fs::read_to_string(crate::support::repo_path("docs/seeds/cjk-14-series.txt"))?;
    paste_and_store(client, base, &text).await?;
    wait_for_url(client, "/submissions/3").await?;
    client
        .goto(&format!(
            "{base}compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=label&where=submission:3&baseline=%E5%9F%BA%E5%87%86+%E5%86%85%E6%A0%B8+6.1"
        ))
        .await?;
    let verdicts = wait_until(
        client,
        "the CJK comparison's verdicts",
        |client| async move { verdict_texts(&client).await },
    )
    .await?;
    let proven = verdicts
        .iter()
        .filter(|v| *v == "better" || *v == "worse")
        .count();
    ensure!(proven > 10, "{proven} proven differences: {verdicts:?}");
    let texts = svg_texts(client).await?;
    for name in ["调度器 ULE", "カーネル 7.0", "파일시스템 ZFS"] {
        ensure!(
            texts.iter().any(|t| t.contains(name)),
            "the chart lacks {name:?}: {texts:?}"
        );
    }
    let labelled = texts
        .iter()
        .filter(|t| t.ends_with(" better") || t.ends_with(" worse"))
        .count();
    ensure!(
        labelled >= proven,
        "{labelled} proven labels on the chart for {proven} proven differences: {texts:?}"
    );
    let png = find_first(client, &["a[href^=\"/compare.png?\"]"], "the PNG link")
        .await?
        .prop("href")
        .await?
        .ok_or_else(|| anyhow!("the PNG link has no href"))?;
    let width = client
        .execute_async(
            "const [href, done] = arguments; const img = new Image(); \
             img.onload = () => done(img.naturalWidth); img.onerror = () => done(0); img.src = href;",
            vec![json!(png)],
        )
        .await?;
    ensure!(
        width.as_u64().unwrap_or(0) > 400,
        "the PNG did not load: {width}"
    );
    save_screenshot(client, shots, "compare-cjk-14-series.png").await?;
    Ok(())
}

/// Seed 000's select q/s across its FreeBSD versions, by thread library:
/// the form offers the attribute as x, and the chart's ticks are the
/// versions in release order.
async fn versions_along_x(client: &Client, base: &str) -> Result<()> {
    client
        .goto(&format!(
            "{base}compare?tool=super-smack&item=select_index&metric=q_per_s&x=os_version&by=thread_lib&where=submission:1"
        ))
        .await?;
    find_first(
        client,
        &["form[action^=\"/compare\"] select[name=\"x\"] option[value=\"os_version\"]"],
        "the x choice os_version",
    )
    .await?;
    let texts = wait_until(client, "the chart across versions", |client| async move {
        let texts = svg_texts(&client).await?;
        Ok(texts.iter().any(|t| t.contains("6.1")).then_some(texts))
    })
    .await?;
    let prerelease = texts.iter().position(|t| t == "6.1-PRERELEASE");
    let rc = texts.iter().position(|t| t == "6.1RC1");
    ensure!(
        matches!((prerelease, rc), (Some(a), Some(b)) if a < b),
        "the versions are not ticks in release order: {texts:?}"
    );
    Ok(())
}

/// Seed 000's own comparison, from its submission page: a baseline chosen
/// in the form and drawn at once keeps the series as they were drawn
/// (names, order) and shows the differences to it.
async fn baseline_on_the_ready_comparison(client: &Client, base: &str) -> Result<()> {
    client.goto(&format!("{base}submissions/1")).await?;
    let link = find_first(
        client,
        &[
            "a.ready-compare[href*=\"by=os_version\"]",
            "a.ready-compare",
        ],
        "seed 000's ready comparison",
    )
    .await?;
    let href = link
        .prop("href")
        .await?
        .ok_or_else(|| anyhow!("the ready comparison has no href"))?;
    let by = query_values(&href, "by");
    ensure!(by.len() > 2, "the ready comparison splits by {by:?}");
    link.click().await?;
    wait_for_url(client, "/compare?").await?;
    let series_before = series_names(client).await?;
    ensure!(
        series_before.len() > 2,
        "the ready comparison has series {series_before:?}"
    );

    // The second series as the baseline, as a reader would pick it.
    let wanted = series_before[1].clone();
    find_first(
        client,
        &["form[action^=\"/compare\"] select[name=\"baseline\"]"],
        "the baseline choice",
    )
    .await?
    .select_by_value(&wanted)
    .await?;
    submit_compare_form(client).await?;
    let url = client.current_url().await?;
    ensure!(
        query_values(url.as_str(), "by") == by,
        "Draw sent by={:?}, not the drawn {by:?}",
        query_values(url.as_str(), "by")
    );
    let hints = client
        .execute(
            "return Array.from(document.querySelectorAll('p.hint')).map(p => p.textContent);",
            vec![],
        )
        .await?;
    let hints: Vec<String> = serde_json::from_value(hints)?;
    ensure!(
        hints.iter().all(|h| !h.contains("baseline")),
        "the page says: {hints:?}"
    );
    ensure!(
        series_names(client).await? == series_before,
        "the series were renamed or reordered by Draw"
    );
    let verdicts = wait_until(
        client,
        "the verdicts against the chosen baseline",
        |client| async move { verdict_texts(&client).await },
    )
    .await?;
    ensure!(!verdicts.is_empty(), "no verdicts against {wanted:?}");
    Ok(())
}

/// The series of the comparison's table, in the order drawn.
async fn series_names(client: &Client) -> Result<Vec<String>> {
    let names = client
        .execute(
            "return Array.from(document.querySelectorAll('tr.series-head th')).map(t => Array.from(t.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent.trim())[0] || '');",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(names)?)
}

/// The page's PNG, the file people attach to a reply, prints `verdict`
/// where the SVG of the same query places it: the browser draws the PNG
/// on a canvas, and the text ink of the label's row starts where the
/// SVG's label does and runs as long as the whole label, verdict and
/// all, in DejaVu Sans (a label without the verdict ends far sooner; one
/// drawn elsewhere starts elsewhere).
async fn png_carries_the_verdict(client: &Client, verdict: &str) -> Result<()> {
    let png = find_first(client, &["a[href^=\"/compare.png?\"]"], "the PNG link")
        .await?
        .prop("href")
        .await?
        .ok_or_else(|| anyhow!("the PNG link has no href"))?;
    ensure!(png.contains("baseline=Original"), "the PNG link: {png}");
    let svg = png.replacen("/compare.png?", "/compare.svg?", 1);
    let found = client
        .execute_async(
            r#"const [png, svg, verdict, done] = arguments;
            const image = new Image();
            const loaded = new Promise((ok, fail) => { image.onload = ok; image.onerror = () => fail('the PNG did not load'); });
            image.src = png;
            Promise.all([fetch(svg).then(r => r.text()), loaded]).then(([text]) => {
              const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
              const root = doc.documentElement;
              const label = Array.from(doc.querySelectorAll('text')).find(t => t.textContent.includes(verdict));
              if (!label) return done({error: 'the SVG has no label with ' + verdict});
              const canvas = document.createElement('canvas');
              canvas.width = image.naturalWidth; canvas.height = image.naturalHeight;
              const g = canvas.getContext('2d');
              g.drawImage(image, 0, 0);
              g.font = label.getAttribute('font-size') + 'px sans-serif';
              const x = Math.round(+label.getAttribute('x')), y = +label.getAttribute('y');
              const size = +label.getAttribute('font-size');
              const band = g.getImageData(0, Math.round(y - size / 2), canvas.width, Math.round(size)).data;
              // Columns holding text's grey ink (bars are coloured).
              const inked = new Array(canvas.width).fill(false);
              for (let i = 0; i < band.length; i += 4) {
                const [r, gr, b] = [band[i], band[i + 1], band[i + 2]];
                if (Math.max(r, gr, b) < 150 && Math.max(r, gr, b) - Math.min(r, gr, b) < 24) inked[(i / 4) % canvas.width] = true;
              }
              let start = x - 3;
              while (start < canvas.width && !inked[start]) start++;
              // The text runs on while gaps between its letters stay short.
              let end = start, gap = 0;
              for (let c = start; c < canvas.width && gap < 12; c++) {
                if (inked[c]) { end = c; gap = 0; } else { gap++; }
              }
              done({
                png: [image.naturalWidth, image.naturalHeight],
                svg: [+root.getAttribute('width'), +root.getAttribute('height')],
                x, start, end,
                expected_end: Math.round(x + g.measureText(label.textContent).width),
              });
            }, e => done({error: String(e)}));"#,
            vec![json!(png), json!(svg), json!(verdict)],
        )
        .await?;
    ensure!(found.get("error").is_none(), "{found}");
    ensure!(
        found["png"] == found["svg"],
        "the PNG and SVG differ in size: {found}"
    );
    let at = |key: &str| found[key].as_i64().unwrap_or(-1000);
    // The canvas measures the SVG's font size as CSS pixels; plotters'
    // raster text comes out about a fifth wider.
    let (wanted, drawn) = (at("expected_end") - at("x"), at("end") - at("x"));
    ensure!(
        (at("start") - at("x")).abs() <= 4 && drawn * 10 >= wanted * 9 && drawn <= wanted * 3 / 2,
        "the PNG lacks {verdict:?} where the SVG prints it (its text should span x {} to {}): {found}",
        at("x"),
        at("expected_end")
    );
    Ok(())
}

/// The verdict words of the compare page's table (without their
/// explanations), or None while there are none yet.
async fn verdict_texts(client: &Client) -> Result<Option<Vec<String>>> {
    let texts = client
        .execute(
            "return Array.from(document.querySelectorAll('td.verdict')).map(t => t.firstChild ? t.firstChild.textContent.trim() : '');",
            vec![],
        )
        .await?;
    let texts: Vec<String> = serde_json::from_value(texts)?;
    Ok((!texts.is_empty()).then_some(texts))
}

/// Pastes `text` into the front page's form and sends it.
async fn paste_and_store(client: &Client, base: &str, text: &str) -> Result<()> {
    client.goto(base).await?;
    let paste = find_first(
        client,
        &["#paste", "textarea[name=\"text\"]"],
        "the paste box",
    )
    .await?;
    // Typing 17 KB key by key is slow; set the value as a paste would.
    client
        .execute(
            "const [box, text] = arguments; box.value = text; \
             box.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![serde_json::to_value(&paste)?, json!(text)],
        )
        .await?;
    let upload = find_first(
        client,
        &[
            "#upload-submit",
            "form[action^=\"/upload\"] button:not([type=\"button\"]):not([type=\"reset\"])",
            "form[action^=\"/upload\"] input[type=\"submit\"]",
        ],
        "the upload form's submit button",
    )
    .await?;
    upload.click().await?;
    Ok(())
}

/// Follows a ready link to the comparison by exactly scheduler and thread
/// library if the submission page offers one; otherwise opens a comparison
/// of the submission's runs and sets the form as a user would.
async fn open_scheduler_comparison(client: &Client) -> Result<()> {
    let links = client
        .find_all(Locator::Css("a[href*=\"/compare?\"]"))
        .await?;
    // Failing an exact link, the closest: a ready comparison (the page's
    // own suggestion) of the same item and metric.
    let mut closest: Option<(u8, fantoccini::elements::Element)> = None;
    for link in links {
        let Some(href) = link.prop("href").await? else {
            continue;
        };
        let mut by = query_values(&href, "by");
        by.sort();
        let same_values = query_values(&href, "item") == ["select_index"]
            && query_values(&href, "metric") == ["q_per_s"];
        if by == ["scheduler", "thread_lib"] && same_values {
            link.click().await?;
            return wait_for_url(client, "/compare?").await;
        }
        let ready = link
            .attr("class")
            .await?
            .is_some_and(|class| class.split_whitespace().any(|c| c == "ready-compare"));
        let score = u8::from(ready) * 2 + u8::from(same_values);
        if closest.as_ref().is_none_or(|(best, _)| score > *best) {
            closest = Some((score, link));
        }
    }
    let first_compare = closest.map(|(_, link)| link);

    match first_compare {
        Some(link) => link.click().await?,
        None => {
            // No link from the submission: the navigation's compare page,
            // where the tool comes first.
            find_first(client, &["a[href=\"/compare\"]"], "the Compare link")
                .await?
                .click()
                .await?;
            let tool = find_first(
                client,
                &["form[action^=\"/compare\"] select[name=\"tool\"]"],
                "the tool choice",
            )
            .await?;
            tool.select_by_value("super-smack").await?;
            submit_compare_form(client).await?;
        }
    }
    wait_for_url(client, "/compare?").await?;

    let form = "form[action^=\"/compare\"]";
    let item = find_first(
        client,
        &[&format!("{form} select[name=\"item\"]")],
        "the item choice",
    )
    .await?;
    item.select_by_value("select_index").await?;
    let metric = find_first(
        client,
        &[&format!("{form} select[name=\"metric\"]")],
        "the metric choice",
    )
    .await?;
    metric.select_by_value("q_per_s").await?;
    find_first(
        client,
        &[&format!("{form} input[name=\"by\"][value=\"scheduler\"]")],
        "the scheduler box",
    )
    .await?;
    for checkbox in client
        .find_all(Locator::Css(&format!(
            "{form} input[type=\"checkbox\"][name=\"by\"]"
        )))
        .await?
    {
        let value = checkbox.attr("value").await?.unwrap_or_default();
        let wanted = value == "scheduler" || value == "thread_lib";
        if checkbox.is_selected().await? != wanted {
            checkbox.click().await?;
        }
    }
    submit_compare_form(client).await?;
    wait_until(
        client,
        "the comparison by scheduler and thread library",
        |client| async move {
            let url = client.current_url().await?;
            let url = url.as_str();
            Ok((url.contains("by=scheduler") && url.contains("by=thread_lib")).then_some(()))
        },
    )
    .await
}

async fn submit_compare_form(client: &Client) -> Result<()> {
    let before = client.current_url().await?;
    find_first(
        client,
        &[
            "form[action^=\"/compare\"] button:not([type=\"button\"]):not([type=\"reset\"])",
            "form[action^=\"/compare\"] input[type=\"submit\"]",
        ],
        "the compare form's submit button",
    )
    .await?
    .click()
    .await?;
    wait_until(client, "the compare form's answer", |client| {
        let before = before.clone();
        async move { Ok((client.current_url().await? != before).then_some(())) }
    })
    .await
}

/// How many runs the submission page lists: its rows are anchored as
/// `run-N`.
async fn run_rows(client: &Client) -> Result<usize> {
    let count = client
        .execute(
            "return new Set(Array.from(document.querySelectorAll('[id^=\"run-\"]'))\
               .map(e => e.id).filter(id => /^run-\\d+$/.test(id))).size;",
            vec![],
        )
        .await?;
    Ok(count.as_u64().unwrap_or(0) as usize)
}

/// The text of every `<text>` element of the page's inline SVG charts.
async fn svg_texts(client: &Client) -> Result<Vec<String>> {
    let texts = client
        .execute(
            "return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent.trim());",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(texts)?)
}

/// The values of one query parameter of a URL (plain names: no decoding
/// needed for the parameters looked at here).
fn query_values(url: &str, name: &str) -> Vec<String> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
        .collect()
}

/// The first element matching one of `selectors`, tried in order, waiting
/// until one appears.
async fn find_first(
    client: &Client,
    selectors: &[&str],
    what: &str,
) -> Result<fantoccini::elements::Element> {
    let selectors: Vec<String> = selectors.iter().map(|s| s.to_string()).collect();
    wait_until(client, what, |client| {
        let selectors = selectors.clone();
        async move {
            for selector in &selectors {
                if let Some(found) = client
                    .find_all(Locator::Css(selector))
                    .await?
                    .into_iter()
                    .next()
                {
                    return Ok(Some(found));
                }
            }
            Ok(None)
        }
    })
    .await
}

async fn wait_for_url(client: &Client, part: &str) -> Result<()> {
    wait_until(client, &format!("a page at {part}"), |client| async move {
        Ok(client
            .current_url()
            .await?
            .as_str()
            .contains(part)
            .then_some(()))
    })
    .await
}

async fn wait_for_url_path(client: &Client, path: &str) -> Result<()> {
    wait_until(client, &format!("the page {path}"), |client| async move {
        Ok((client.current_url().await?.path() == path).then_some(()))
    })
    .await
}

/// Polls `check` until it gives a value, for at most [`PATIENCE`].
async fn wait_until<T, F, Fut>(client: &Client, what: &str, mut check: F) -> Result<T>
where
    F: FnMut(Client) -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>>>,
{
    let start = Instant::now();
    loop {
        let last = match check(client.clone()).await {
            Ok(Some(found)) => return Ok(found),
            Ok(None) => None,
            // A page still loading can answer a command with an error.
            Err(error) => Some(error),
        };
        if start.elapsed() > PATIENCE {
            let why = last.map(|e| format!(": {e:#}")).unwrap_or_default();
            bail!("gave up waiting for {what} after {PATIENCE:?}{why}");
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn save_screenshot(client: &Client, dir: &Path, name: &str) -> Result<()> {
    // Fonts and the chart are in the page once it has loaded; let layout settle.
    client
        .execute_async(
            "const done = arguments[0]; document.fonts.ready.then(() => requestAnimationFrame(() => done(true)));",
            vec![],
        )
        .await?;
    let png = client.screenshot().await?;
    ensure!(
        png.starts_with(b"\x89PNG"),
        "the screenshot {name} is not a PNG"
    );
    std::fs::write(dir.join(name), png).with_context(|| format!("writing {name}"))?;
    Ok(())
}

fn screenshot_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os("BENCHLOG_SCREENSHOT_DIR") {
        Some(dir) => Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// A port that was free a moment ago.
fn free_port() -> Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// Waits until `GET path` on the port answers 200.
fn wait_for_http_ok(port: u16, path: &str, child: &mut Child, what: &str) -> Result<()> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("{what} exited before it answered: {status}");
        }
        if http_status(port, path).is_ok_and(|status| status == 200) {
            return Ok(());
        }
        if start.elapsed() > PATIENCE {
            bail!("{what} did not answer GET {path} on port {port} within {PATIENCE:?}");
        }
        std::thread::sleep(POLL);
    }
}

fn http_status(port: u16, path: &str) -> Result<u16> {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head)?;
    let status = std::str::from_utf8(&head[9..12])?.parse()?;
    Ok(status)
}

/// A child process that is stopped when the guard goes out of scope,
/// whether the test passed or not.
struct Guard {
    child: Child,
    /// The child leads its own process group (chromedriver and the browsers
    /// it starts); the whole group is stopped.
    group: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.group {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The real `benchlog serve` on a free port with a fresh database.
struct Server {
    url: String,
    _process: Guard,
}

impl Server {
    fn start(temp: &TempDir) -> Result<Self> {
        let port = free_port()?;
        let child = Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .arg("serve")
            .arg("--db")
            .arg(temp.path().join("e2e.db"))
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env_remove("BENCHLOG_DB")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .context("starting benchlog serve")?;
        let mut process = Guard {
            child,
            group: false,
        };
        wait_for_http_ok(port, "/healthz", &mut process.child, "benchlog serve")?;
        Ok(Server {
            url: format!("http://127.0.0.1:{port}/"),
            _process: process,
        })
    }
}

/// chromedriver on a free port.
struct ChromeDriver {
    url: String,
    _process: Guard,
}

impl ChromeDriver {
    fn start() -> Result<Self> {
        use std::os::unix::process::CommandExt;

        let port = free_port()?;
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting chromedriver")?;
        let mut process = Guard { child, group: true };
        wait_for_http_ok(port, "/status", &mut process.child, "chromedriver")?;
        Ok(ChromeDriver {
            url: format!("http://127.0.0.1:{port}"),
            _process: process,
        })
    }

    /// A headless Chromium session with a profile of its own.
    async fn session(&self, temp: &TempDir) -> Result<Client> {
        let profile = temp.path().join("chromium-profile");
        let args: Vec<String> = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain([
            format!("--window-size={WIDTH},{HEIGHT}"),
            format!("--user-data-dir={}", profile.display()),
        ])
        .collect();
        let capabilities: serde_json::Map<String, Value> = serde_json::from_value(json!({
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": CHROMIUM, "args": args },
        }))?;
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.url)
            .await
            .with_context(|| format!("starting {CHROMIUM} through chromedriver at {}", self.url))?;
        set_viewport(&client, WIDTH, HEIGHT).await?;
        Ok(client)
    }
}

/// Sizes the window so that the page itself (what a screenshot shows) is
/// `width` × `height`: the window size includes the browser's own frame.
async fn set_viewport(client: &Client, width: u32, height: u32) -> Result<()> {
    client.set_window_size(width, height).await?;
    let inner = client
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await?;
    let inner: (u32, u32) = serde_json::from_value(inner)?;
    if inner != (width, height) {
        let frame = (
            width.saturating_sub(inner.0),
            height.saturating_sub(inner.1),
        );
        client
            .set_window_size(width + frame.0, height + frame.1)
            .await?;
    }
    Ok(())
}
