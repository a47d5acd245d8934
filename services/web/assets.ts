/**
 * The pages' only script and stylesheet, served from /assets (the Content-Security-Policy allows
 * scripts and styles from this origin only). Kept as strings in a module so the compiled image carries
 * them without a copy step.
 *
 * The script is progressive: every page works without it. With it:
 *   - `#t=<seconds>` scrolls to the sentence said at that moment, loading its part of the transcript
 *     first when the page does not hold it (a citation's link);
 *   - "Later sentences" loads the next part in place instead of opening a new page;
 *   - a live meeting's transcript grows as sentences arrive (polled every 2 s).
 */
export const APP_JS = String.raw`(function () {
  'use strict';
  var list = document.getElementById('transcript');
  if (!list) return;
  var base = list.getAttribute('data-base') || '';
  var meeting = list.getAttribute('data-meeting');
  var url = base + '/meetings/' + encodeURIComponent(meeting) + '/sentences';

  function clock(seconds) {
    var s = Math.max(0, Math.floor(seconds)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = String(s % 60).padStart(2, '0');
    return h > 0 ? h + ':' + String(m).padStart(2, '0') + ':' + sec : m + ':' + sec;
  }

  function item(s) {
    var li = document.createElement('li');
    li.id = 's-' + s.index;
    li.setAttribute('data-start', String(s.start_time));
    var a = document.createElement('a');
    a.className = 'time';
    a.href = '#t=' + Math.floor(s.start_time);
    a.textContent = clock(s.start_time);
    var who = document.createElement('span');
    who.className = 'speaker';
    who.textContent = s.speaker_name;
    var p = document.createElement('p');
    p.textContent = s.text;
    li.appendChild(a);
    li.appendChild(document.createTextNode(' '));
    li.appendChild(who);
    li.appendChild(p);
    return li;
  }

  function load(params) {
    return fetch(url + '?' + new URLSearchParams(params), { credentials: 'same-origin', headers: { accept: 'application/json' } }).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    });
  }

  function append(page) {
    page.sentences.forEach(function (s) {
      var existing = document.getElementById('s-' + s.index);
      if (existing) existing.replaceWith(item(s));
      else list.appendChild(item(s));
    });
    list.setAttribute('data-next', page.next_index === null ? '' : String(page.next_index));
    var more = document.getElementById('more');
    if (more && page.next_index === null) more.remove();
  }

  function replace(page) {
    list.textContent = '';
    append(page);
  }

  var more = document.getElementById('more');
  if (more) {
    more.addEventListener('click', function (e) {
      var next = list.getAttribute('data-next');
      if (!next) return;
      e.preventDefault();
      load({ from: next }).then(append).catch(function () { window.location.href = more.href; });
    });
  }

  function sentenceAt(seconds) {
    var items = list.querySelectorAll('li[data-start]'), found = null;
    for (var i = 0; i < items.length; i++) {
      if (Number(items[i].getAttribute('data-start')) <= seconds) found = items[i];
      else break;
    }
    return found;
  }

  function show(el) {
    var current = list.querySelector('li.current');
    if (current) current.classList.remove('current');
    el.classList.add('current');
    el.setAttribute('tabindex', '-1');
    el.scrollIntoView({ block: 'center' });
    el.focus({ preventScroll: true });
  }

  function goToHash() {
    var m = /^#t=(\d+(?:\.\d+)?)$/.exec(window.location.hash);
    if (!m) return;
    var seconds = Number(m[1]);
    var first = list.querySelector('li[data-start]');
    var next = list.getAttribute('data-next');
    var inWindow = first && Number(first.getAttribute('data-start')) <= seconds && (!next || (function () {
      var last = list.querySelector('li[data-start]:last-child');
      return last && Number(last.getAttribute('data-start')) >= seconds;
    })());
    if (inWindow) {
      var el = sentenceAt(seconds);
      if (el) show(el);
      return;
    }
    load({ at: String(seconds) }).then(function (page) {
      replace(page);
      var el = sentenceAt(seconds);
      if (el) show(el);
    });
  }
  window.addEventListener('hashchange', goToHash);
  goToHash();

  if (list.getAttribute('data-live') === 'true') {
    var poll = function () {
      var count = list.querySelectorAll('li[data-start]').length;
      var last = list.querySelector('li[data-start]:last-child');
      var from = last ? Number(last.id.slice(2)) + 1 : 0;
      load({ from: String(from) }).then(function (page) {
        if (page.sentences.length) append(page);
        if (page.is_live) setTimeout(poll, 2000);
        else if (count !== list.querySelectorAll('li[data-start]').length || !page.is_live) {
          var badge = document.querySelector('.notice');
          if (badge) badge.textContent = 'This meeting has ended.';
        }
      }).catch(function () { setTimeout(poll, 5000); });
    };
    setTimeout(poll, 2000);
  }
})();
`;

export const APP_CSS = `:root{color-scheme:light;--ink:#1a1a1a;--muted:#555;--line:#ddd;--accent:#0b57d0;--bg:#fff}
*{box-sizing:border-box}body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg);margin:0;line-height:1.5}
header.top{display:flex;justify-content:space-between;align-items:center;padding:.6rem 1.2rem;border-bottom:1px solid var(--line)}
header.top a.home{font-weight:600;color:var(--ink);text-decoration:none}.account{display:flex;gap:.8rem;align-items:center}
main{max-width:54rem;margin:0 auto;padding:1rem 1.2rem 4rem}h1{font-size:1.6rem;margin:.6rem 0}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1rem 0 .3rem}a{color:var(--accent)}.muted,.meta{color:var(--muted);font-size:.92rem}
.error{background:#fdecea;border:1px solid #f5c2c0;padding:.6rem .8rem;border-radius:6px}.notice{background:#eef4ff;border:1px solid #c9dafc;padding:.6rem .8rem;border-radius:6px}
.badge{display:inline-block;background:#e7eefc;color:#0a3d91;border-radius:999px;padding:0 .55rem;font-size:.8rem;font-weight:600}
form.inline{display:inline}button{font:inherit;padding:.4rem 1rem;cursor:pointer;border:1px solid #888;border-radius:6px;background:#f6f6f6}
button.link{border:0;background:none;color:var(--accent);padding:0;text-decoration:underline}a.button{display:inline-block;padding:.45rem 1rem;border:1px solid var(--accent);border-radius:6px;text-decoration:none}
form.search{display:flex;gap:.5rem;align-items:center;margin:1rem 0}form.search input{flex:1;padding:.45rem;font:inherit}
form.signin label{display:block;margin:.8rem 0 .2rem}form.signin input[type=password]{width:100%;padding:.5rem;font:inherit}form.signin button{margin-top:.8rem}
ul.meetings{list-style:none;padding:0}ul.meetings li{padding:.7rem 0;border-bottom:1px solid var(--line)}ul.meetings .title{font-weight:600;display:block}
ul.meetings .summary{margin:.2rem 0 0;color:#333}ol.moments{list-style:none;padding:0;margin:.3rem 0 0;font-size:.93rem}ol.moments li{margin:.15rem 0}ol.moments .time{font-variant-numeric:tabular-nums;margin-right:.3rem}ol.moments .speaker{font-weight:600}mark{background:#fff4c2}.pager{display:flex;gap:1rem;margin-top:1rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
svg.chart{display:block;max-width:100%}svg.chart .label{font-size:14px;fill:#1a1a1a}svg.chart .axis{font-size:12px;fill:#555}svg.chart .talk{fill:#0b57d0}
svg.chart .positive{fill:#1e8e3e}svg.chart .neutral{fill:#9aa0a6}svg.chart .negative{fill:#d93025}
table.speakers{border-collapse:collapse;margin-top:.6rem;width:100%}table.speakers caption{text-align:left;color:var(--muted)}
table.speakers th,table.speakers td{text-align:left;padding:.2rem .5rem;border-bottom:1px solid var(--line)}
ol.transcript{list-style:none;padding:0}ol.transcript li{display:grid;grid-template-columns:4.5rem 9rem 1fr;gap:.5rem;padding:.3rem .2rem;border-radius:4px}
ol.transcript li p{margin:0}ol.transcript .time{color:var(--muted);font-variant-numeric:tabular-nums;text-decoration:none}
ol.transcript .speaker{font-weight:600}ol.transcript li.current{background:#fff4c2;outline:2px solid #e0b400}
code{background:#f2f2f2;padding:.1rem .3rem;border-radius:4px}
@media (max-width:40rem){ol.transcript li{grid-template-columns:1fr}}
`;
