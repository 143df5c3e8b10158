//! HTML → plain text for decisions, on html5ever's spec-compliant *tokenizer* (no DOM).
//!
//! Why a tokenizer and not a tree: the seed-000 rules only need start/end tags, and a
//! streaming pass is linear in the input with no tree to build, walk or drop, so an HTML bomb
//! costs no more than its length. We keep our own small stack of open elements (to know when
//! we are inside `<sup>`, `<pre>`, skipped elements) with the usual implied closings (`<p>`,
//! `<li>`, `<dt>`/`<dd>`, `<tr>`/`<td>`); deeper than [`MAX_DEPTH`] the document is refused.
//!
//! Randnummern the markup prints in their own element (`<dt>`, `<div class="rd">`,
//! `<span class="absatzRechts">`, `<li data-rd="N">`) are written as an explicit mark line
//! ([`RN_MARK`] + the number) that [`super::lines`] joins with the paragraph after it.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};

use super::lines::RN_MARK;
use super::{DecisionError, DocFlags, MAX_DEPTH, Rendered};
use crate::plain_text::PlainText;

/// Renders an HTML document or fragment.
pub(crate) fn render(html: &str) -> Result<Rendered, DecisionError> {
    let sink = Sink { st: RefCell::new(State::default()) };
    let tok = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    // The mark character is ours; a stray one in the input must not fake a Randnummer.
    let cleaned;
    let html = if html.contains(RN_MARK) {
        cleaned = html.replace(RN_MARK, "");
        cleaned.as_str()
    } else {
        html
    };
    // A full portal page (not a cut-out container) carries navigation we leave out.
    let probe = &html.as_bytes()[..html.len().min(1 << 16)];
    let full_page = probe.windows(5).any(|w| w.eq_ignore_ascii_case(b"<body"));
    tok.sink.st.borrow_mut().full_page = full_page;
    input.push_back(StrTendril::from_slice(html));
    let _ = tok.feed(&input);
    if tok.sink.st.borrow().too_deep {
        return Err(DecisionError::TooDeep { limit: MAX_DEPTH });
    }
    // Flushes what the tokenizer still holds (text or a character reference at the very end).
    tok.end();
    let st = tok.sink.st.into_inner();
    Ok(Rendered { text: st.pt.finish(), flags: DocFlags::default() })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Block,
    Inline,
    Skip,
    Sup,
    Pre,
    Cell,
}

#[derive(Debug)]
struct Open {
    name: html5ever::LocalName,
    kind: Kind,
    /// A Randnummer element: its end closes the mark line.
    rn: bool,
}

#[derive(Default)]
struct State {
    pt: PlainText,
    stack: Vec<Open>,
    skip: usize,
    pre: usize,
    too_deep: bool,
    full_page: bool,
}

struct Sink {
    st: RefCell<State>,
}

const VOID: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];
const SKIP: &[&str] = &[
    "script", "style", "head", "noscript", "template", "nav", "select", "button", "svg", "math", "iframe", "object",
    "textarea",
];
const BLOCK: &[&str] = &[
    "p",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "tr",
    "blockquote",
    "section",
    "article",
    "header",
    "footer",
    "aside",
    "main",
    "address",
    "center",
    "figure",
    "figcaption",
    "form",
    "fieldset",
    "legend",
    "caption",
    "thead",
    "tbody",
    "tfoot",
    "details",
    "summary",
    "body",
    "html",
    "title",
    "hr",
    "br",
    "h",
    "pre",
    "option",
];

fn kind_of(name: &str) -> Kind {
    if SKIP.contains(&name) {
        Kind::Skip
    } else if name == "sup" {
        Kind::Sup
    } else if name == "pre" {
        Kind::Pre
    } else if name == "td" || name == "th" {
        Kind::Cell
    } else if BLOCK.contains(&name) {
        Kind::Block
    } else {
        Kind::Inline
    }
}

fn attr<'a>(tag: &'a Tag, name: &str) -> Option<&'a str> {
    tag.attrs.iter().find(|a| &*a.name.local == name).map(|a| &*a.value)
}

/// Page chrome of full portal pages, recognised by id/class words.
const CHROME: &[&str] = &[
    "nav",
    "menu",
    "breadcrumb",
    "footer",
    "header",
    "branding",
    "search",
    "service",
    "language",
    "teaser",
    "banner",
    "cookie",
    "skip",
    "druck",
    "print",
    "screen",
];

fn is_chrome(tag: &Tag) -> bool {
    let name: &str = &tag.name;
    if !matches!(name, "div" | "ul" | "ol" | "header" | "footer" | "aside" | "section" | "form" | "span" | "p" | "a") {
        return false;
    }
    ["id", "class"].iter().filter_map(|a| attr(tag, a)).any(|v| {
        let v = v.to_ascii_lowercase();
        CHROME.iter().any(|w| v.contains(w))
    })
}

fn has_class(tag: &Tag, class: &str) -> bool {
    attr(tag, "class").is_some_and(|c| c.split_ascii_whitespace().any(|c| c == class))
}

impl State {
    fn pop_one(&mut self) {
        if let Some(open) = self.stack.pop() {
            if open.rn && self.skip == 0 {
                self.pt.block_break();
            }
            match open.kind {
                Kind::Skip => self.skip = self.skip.saturating_sub(1),
                Kind::Pre => {
                    self.pre = self.pre.saturating_sub(1);
                    self.pt.block_break();
                }
                Kind::Block => self.pt.block_break(),
                Kind::Sup => self.pt.soft_space(),
                Kind::Cell | Kind::Inline => {}
            }
        }
    }

    /// Pops up to and including the innermost open `names` element, unless a `stop` element
    /// is met first (an `<li>` does not close the `<li>` of an outer list).
    fn close_implied(&mut self, names: &[&str], stop: &[&str]) {
        let floor = self.stack.len().saturating_sub(SCAN);
        for i in (floor..self.stack.len()).rev() {
            let n = &*self.stack[i].name;
            if names.contains(&n) {
                while self.stack.len() > i {
                    self.pop_one();
                }
                return;
            }
            if stop.contains(&n) {
                return;
            }
        }
    }

    fn start(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let mut kind = kind_of(name);
        if self.full_page && kind != Kind::Skip && is_chrome(tag) {
            kind = Kind::Skip;
        }
        let rn = name == "dt"
            || (name == "div" && has_class(tag, "rd"))
            || (name == "span" && has_class(tag, "absatzRechts"));
        if name == "body" {
            // Whatever the head left open (an unclosed <head>, <title>) ends here.
            while !self.stack.is_empty() {
                self.pop_one();
            }
        }
        if matches!(name, "p" | "div" | "table" | "dl" | "ul" | "ol" | "h1" | "h2" | "h3" | "section" | "article")
            && self.stack.iter().take(4).any(|o| &*o.name == "head")
        {
            // Body content inside an unclosed <head> closes it, as in a browser.
            self.close_implied(&["head"], &[]);
        }
        match name {
            "p" | "div" | "ul" | "ol" | "dl" | "table" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "blockquote"
            | "pre" | "section" => self.close_implied(&["p"], &["div", "td", "th", "li", "dd", "blockquote"]),
            "li" => self.close_implied(&["li"], &["ul", "ol"]),
            "dt" | "dd" => self.close_implied(&["dt", "dd"], &["dl"]),
            "tr" => self.close_implied(&["tr"], &["table"]),
            "td" | "th" => self.close_implied(&["td", "th"], &["tr", "table"]),
            _ => {}
        }
        let raw = match name {
            "script" => Some(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
            "title" | "textarea" => Some(RawKind::Rcdata),
            _ => None,
        };
        if self.skip == 0 {
            match kind {
                Kind::Block | Kind::Pre => self.pt.block_break(),
                Kind::Sup => self.pt.soft_space(),
                Kind::Cell => self.pt.cell(),
                Kind::Inline | Kind::Skip => {}
            }
            if name == "br" {
                self.pt.hard_break();
            }
            // Randnummer elements: the number (or label) they hold goes on a mark line.
            if rn {
                self.pt.block_break();
                self.pt.text(RN_MARK_STR);
            }
            // gesetze-bayern `<rd nr="3"/>` inside the paragraph it numbers.
            if name == "rd"
                && let Some(nr) = attr(tag, "nr")
            {
                let nr = nr.trim();
                if !nr.is_empty() && nr.len() <= 6 && nr.bytes().all(|b| b.is_ascii_digit()) {
                    self.pt.block_break();
                    self.pt.text(RN_MARK_STR);
                    self.pt.text(nr);
                    self.pt.block_break();
                }
            }
            if name == "li"
                && let Some(rd) = attr(tag, "data-rd")
            {
                let rd = rd.trim();
                if !rd.is_empty() && rd.len() <= 6 && rd.bytes().all(|b| b.is_ascii_digit()) {
                    self.pt.text(RN_MARK_STR);
                    self.pt.text(rd);
                    self.pt.block_break();
                }
            }
        }
        let void = VOID.contains(&name) || (tag.self_closing && kind != Kind::Skip);
        if void {
            if self.skip == 0 && rn {
                // `<dt/>`: an empty Randnummer cell; close its mark line.
                self.pt.block_break();
            }
        } else {
            if kind == Kind::Skip {
                self.skip += 1;
            }
            if kind == Kind::Pre {
                self.pre += 1;
            }
            self.stack.push(Open { name: tag.name.clone(), kind, rn });
            if self.stack.len() > MAX_DEPTH {
                self.too_deep = true;
                // Pauses the tokenizer: `feed` returns and we never resume.
                return TokenSinkResult::Script(());
            }
        }
        if tag.self_closing && kind == Kind::Skip {
            return TokenSinkResult::Continue;
        }
        match raw {
            Some(k) => TokenSinkResult::RawData(k),
            None if name == "plaintext" => TokenSinkResult::Plaintext,
            None => TokenSinkResult::Continue,
        }
    }

    fn end(&mut self, tag: &Tag) {
        let name: &str = &tag.name;
        let floor = self.stack.len().saturating_sub(SCAN);
        if let Some(i) = self.stack[floor..].iter().rposition(|o| &*o.name == name).map(|i| i + floor) {
            while self.stack.len() > i {
                self.pop_one();
            }
        } else if self.skip == 0 && matches!(kind_of(name), Kind::Block) {
            // A stray `</p>` still ends a paragraph, as browsers do.
            self.pt.block_break();
        }
    }

    fn chars(&mut self, s: &str) {
        if self.skip > 0 {
            return;
        }
        if self.pre > 0 {
            self.pt.preformatted(&clean(s));
        } else if s.contains(['\u{ad}', '\u{200b}', '\u{feff}']) {
            self.pt.text(&clean(s));
        } else {
            self.pt.text(s);
        }
    }
}

const RN_MARK_STR: &str = "\u{e000}";

/// How far down the stack an end tag or an implied closing looks for its element. Real markup
/// closes within a few levels; the bound keeps a bomb of stray end tags over a deep stack linear.
const SCAN: usize = 256;

/// Drops soft hyphens and zero-width characters, which are invisible in the source.
fn clean(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '\u{ad}' | '\u{200b}' | '\u{feff}')).collect()
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut st = self.st.borrow_mut();
        if st.too_deep {
            return TokenSinkResult::Script(());
        }
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return st.start(&tag),
                TagKind::EndTag => st.end(&tag),
            },
            Token::CharacterTokens(t) => st.chars(&t),
            Token::NullCharacterToken
            | Token::CommentToken(_)
            | Token::DoctypeToken(_)
            | Token::EOFToken
            | Token::ParseError(_) => {}
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        render(html).unwrap().text.replace(RN_MARK, "#")
    }

    #[test]
    fn blocks_end_lines_and_inline_markup_does_not() {
        assert_eq!(
            text("<div><p>Die <b>Würde</b>\n des&nbsp;Menschen</p><p>ist</p></div>"),
            "Die Würde des Menschen\nist"
        );
        assert_eq!(text("<p>(1)<sup>1</sup>Der</p>"), "(1) 1 Der");
        assert_eq!(text("a<br>b<script>x<y</script>c<style>p{}</style>"), "a\nbc");
        assert_eq!(text("<table><tr><td>1</td><td>zwei</td></tr></table>"), "1 | zwei");
        assert_eq!(text("<html><head><title>T</title><p>Inhalt</p>"), "Inhalt");
        assert_eq!(text("<p>Ende &amp"), "Ende &");
    }

    #[test]
    fn randnummer_elements_become_mark_lines() {
        assert_eq!(text("<dl><dt><a>1</a></dt><dd><p>Text</p></dd></dl>"), "#1\nText");
        assert_eq!(text("<dl><dt/><dd><p>Tenor</p></dd></dl>"), "#\nTenor");
        assert_eq!(text("<ol><li data-rd=\"7\"><p>Sieben</p></li></ol>"), "#7\nSieben");
        assert_eq!(text("<div class=\"rd\">3</div><div class=\"absatz\">Drei</div>"), "#3\nDrei");
    }

    #[test]
    fn deep_nesting_is_refused_and_unclosed_paragraphs_are_not_deep() {
        let bomb = "<div>".repeat(100_000);
        assert!(matches!(render(&bomb), Err(DecisionError::TooDeep { .. })));
        let flat = "<p>x".repeat(100_000);
        assert!(render(&flat).is_ok());
        let lis = "<ul><li>a<li>b</ul>".repeat(10_000);
        assert!(render(&lis).is_ok());
    }
}
