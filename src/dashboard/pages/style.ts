/** The dashboard's one stylesheet: served from the Worker so the CSP can stay `style-src 'self'`. Fluid widths, rem units: readable at 200 % zoom. */
export const STYLESHEET = `
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.5rem 1rem;background:#1d3557;color:#fff}
header a{color:#fff}
.brand{font-size:1.1rem}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;text-decoration:underline 3px}
.logout{margin-left:auto;display:flex;gap:.5rem;align-items:center}
main{max-width:72rem;margin:0 auto;padding:1rem}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;color:#000;padding:.5rem}
:focus-visible{outline:3px solid #e76f51;outline-offset:2px}
fieldset{border:1px solid #ccc;border-radius:.4rem;margin:1rem 0;padding:.75rem 1rem;background:#fff}
legend{font-weight:700;padding:0 .25rem}
label{display:block;font-weight:600;margin-top:.5rem}
input[type=text],input[type=password],input[type=number],input[type=search],textarea,select{width:100%;max-width:40rem;font:inherit;padding:.35rem .5rem;border:1px solid #888;border-radius:.25rem}
textarea{min-height:5rem}
input[type=checkbox]{width:1.1rem;height:1.1rem}
.check{display:flex;gap:.4rem;align-items:center;font-weight:400}
button,.button{font:inherit;padding:.4rem .9rem;border-radius:.3rem;border:1px solid #1d3557;background:#1d3557;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1d3557}
button.danger{background:#9b2226;border-color:#9b2226}
.error{color:#9b2226;font-weight:600;margin:.25rem 0}
[aria-invalid=true]{border-color:#9b2226;border-width:2px}
.notice{padding:.6rem .9rem;border-radius:.3rem}
.notice.ok{background:#d8f3dc}.notice.error{background:#ffe5e5;color:#9b2226}.notice.info{background:#e7eefa}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
.table-wrap{overflow-x:auto}
.row-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:.25rem 1rem;border-top:1px dashed #ccc;padding-top:.5rem;margin-top:.5rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(20rem,1fr));gap:1rem}
.card{background:#fff;border:1px solid #ccc;border-radius:.5rem;padding:1rem}
.card.expired{opacity:.75;border-style:dashed}
.badge{display:inline-block;padding:0 .4rem;border-radius:.3rem;background:#e9ecef;font-size:.9rem;white-space:nowrap;overflow-wrap:normal}
.badge.veto,.badge.dead,.badge.rejected,.badge.expired{background:#ffe5e5;color:#9b2226}
.badge.escalate,.badge.unknown,.badge.retrying{background:#fff3cd;color:#7a5b00}
.badge.pass,.badge.done,.badge.performed,.badge.approved{background:#d8f3dc;color:#1b4332}
pre,code{font-family:ui-monospace,monospace;font-size:.9rem}
pre{white-space:pre-wrap;word-break:break-word;background:#f1f3f5;padding:.5rem;border-radius:.25rem}
del{background:#ffe5e5}ins{background:#d8f3dc;text-decoration:none}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:1rem}
.trends .charts{grid-template-columns:repeat(auto-fit,minmax(min(30rem,100%),1fr))}
svg.chart text{font-size:14px}
.charts h3{font-size:1rem;margin:.5rem 0 0}
.trends nav a[aria-current=page]{font-weight:700}
.conversation{list-style:none;padding:0;margin:0}
.exchange{background:#fff;border:1px solid #ddd;border-radius:.5rem;padding:.5rem .9rem;margin:0 0 .75rem}
.exchange .meta{margin:.25rem 0;font-size:.9rem}
.bubble{margin:.35rem 0;padding:.4rem .7rem;border-radius:.6rem;max-width:40rem;overflow-wrap:anywhere}
.bubble.contact{background:#e7eefa}
.bubble.agent{background:#f1f3f5;margin-left:auto}
.who{display:block;font-size:.8rem;font-weight:700;color:#444}
.actions-list{margin:.25rem 0;padding-left:1.25rem}
.inbox{list-style:none;padding:0}
svg text{font:12px system-ui,sans-serif}
.muted{color:#555}
.narrow{max-width:28rem}
.card h2{font-size:1.05rem;margin-top:0}
dt{font-weight:600}
input[type=number]{max-width:12rem}
form+form,form+.card,.card+.card{margin-top:1rem}
.section-nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0 0 .5rem;padding:0}
.section-nav a[aria-current=page]{font-weight:700}
.section-index{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:1rem}
.section-index h2{margin:0;font-size:1.1rem}
.row-grid .wide{grid-column:1/-1}
.copyable{margin:.5rem 0}.copyable code{display:inline-block;word-break:break-all;background:#f1f3f5;padding:.2rem .4rem}
.copy-label{font-weight:600;margin:.25rem 0}
.steps h2{font-size:1.05rem;margin:.75rem 0 .25rem}
code{overflow-wrap:anywhere}
h1,h2,caption,p,li,blockquote,label,summary{overflow-wrap:anywhere}
td{overflow-wrap:break-word}
td code,td .id{overflow-wrap:anywhere}
dd{overflow-wrap:anywhere}
.cards>.card{margin-top:0}
td button{white-space:normal;text-align:left}
`;

/** Copy buttons: `<button data-copy="id">` copies that element's text (select-and-copy still works without it). */
export const COPY_SCRIPT = `
document.addEventListener('click', function (e) {
  var b = e.target instanceof Element ? e.target.closest('button[data-copy]') : null;
  if (!b) return;
  var el = document.getElementById(b.getAttribute('data-copy'));
  if (!el) return;
  var label = b.getAttribute('data-label') || b.textContent;
  b.setAttribute('data-label', label);
  navigator.clipboard.writeText(el.textContent || '').then(function () { b.textContent = 'Copied'; }, function () {
    var r = document.createRange(); r.selectNodeContents(el); var s = getSelection(); s.removeAllRanges(); s.addRange(r); b.textContent = 'Selected: press Ctrl+C';
  });
  setTimeout(function () { b.textContent = label; }, 3000);
});
`;
