/* Search summaries when the book is read from disk (file://, no server).
   Sphinx's search shows, under each page it finds, the text around the words searched for:
   it fetch()es the page to read it, and a browser refuses fetch() from a file:// page, so the
   results were titles only. search_pages.js, written at the end of the build (conf.py), holds
   each page's main text; here fetch() answers from it for those pages, on file:// only. */
(() => {
  if (window.location.protocol !== "file:") return;
  const networkFetch = window.fetch.bind(window);
  window.fetch = (resource, options) => {
    const pages = window.RK_SEARCH_PAGES || {};
    const root = new URL(document.documentElement.dataset.content_root || "./", window.location.href).href;
    const url = new URL(String(resource), window.location.href).href.split("#")[0];
    const page = url.startsWith(root) ? url.slice(root.length) : null;
    if (page === null || !(page in pages)) return networkFetch(resource, options);
    const html = `<div role="main">${pages[page]}</div>`;
    return Promise.resolve(new Response(html, { headers: { "Content-Type": "text/html" } }));
  };
})();
