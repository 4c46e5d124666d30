// Figures open full size: every picture in the article that is not already a link becomes
// one to its own file (the page is static; nothing is fetched from elsewhere). An animation
// player's picture is its current frame, under its own controls: it stays as it is.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll(".bd-article img")) {
    if (img.closest("a") || img.closest(".sanpath-player")) continue;
    const link = document.createElement("a");
    link.href = img.getAttribute("src");
    link.className = "sanpath-zoom";
    link.title = "open the picture full size";
    img.replaceWith(link);
    link.appendChild(img);
  }
});
