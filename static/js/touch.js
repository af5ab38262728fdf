// Whether the page is on a phone or a touch screen: the media query of arena.css's touch rules, for the drawings
// whose targets scripts size (boards, the search tree, chart marks).

/** Matches on phones and touch screens, where every target is at least 44 x 44 CSS px. */
export const TOUCH_SCREEN = window.matchMedia("(max-width: 600px), (pointer: coarse)");
