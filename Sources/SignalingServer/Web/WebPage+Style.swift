extension WebPage {
    /// `/app.css`: one column that fits a phone; state is always also said in
    /// words or shapes (borders, prefixes), never by colour alone.
    static let css = #"""
*, *::before, *::after { box-sizing: border-box; }
html { font: 16px/1.45 system-ui, sans-serif; color: #111; background: #fff; }
body { margin: 0 auto; max-width: 44rem; padding: 0.75rem; }
h1 { font-size: 1.3rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 0.75rem 0 0.5rem; }
header { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: baseline; border-bottom: 2px solid #111; padding-bottom: 0.5rem; }
#status { margin: 0; font-weight: 600; }
label { display: block; margin: 0.75rem 0 0.25rem; }
input, textarea, button { font: inherit; }
input, textarea { width: 100%; padding: 0.5rem; border: 2px solid #111; border-radius: 4px; }
button { margin-top: 0.5rem; padding: 0.5rem 1rem; border: 2px solid #111; border-radius: 4px; background: #eee; color: #111; cursor: pointer; min-height: 2.75rem; }
button:disabled { border-style: dashed; cursor: not-allowed; }
:focus-visible { outline: 3px solid #111; outline-offset: 2px; }
.code { font: 700 2rem/1.2 ui-monospace, monospace; letter-spacing: 0.15em; margin: 0.25rem 0; }
#link { word-break: break-all; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 0.75rem; margin: 0.5rem 0; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; word-break: break-word; }
#sas { font: 600 1.1rem ui-monospace, monospace; }
#messages { list-style: none; margin: 0.5rem 0; padding: 0.5rem; border: 1px solid #111; min-height: 8rem; max-height: 55vh; overflow-y: auto; }
#messages li { margin: 0.25rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
#messages li.mine { padding-left: 0.5rem; border-left: 4px double #111; }
#messages li.peer { padding-left: 0.5rem; border-left: 4px solid #111; }
#messages li.note { font-style: italic; }
#messages li.file { padding-left: 0.5rem; border-left: 4px dotted #111; }
#messages li.file progress { display: block; width: 100%; }
#messages li.file button { margin-right: 0.5rem; }
#messages time { font: 0.8rem ui-monospace, monospace; margin-right: 0.4rem; }
#messages .who { font-weight: 700; margin-right: 0.3rem; }
#error { border: 2px solid #111; padding: 0.5rem; font-weight: 600; }
#error::before { content: "Error: "; }
#again { display: inline-block; margin-top: 0.75rem; }
[hidden] { display: none !important; }
@media (prefers-color-scheme: dark) {
  html { color: #eee; background: #111; }
  header, input, textarea, button, #messages, #error { border-color: #eee; }
  #messages li.mine, #messages li.peer { border-left-color: #eee; }
  input, textarea { background: #222; color: #eee; }
  button { background: #333; color: #eee; }
  :focus-visible { outline-color: #eee; }
  a { color: #9cf; }
}

"""#
}
