// The renderer's drawing layer: the root modal, one component per node type, and the CSS.
import css from '../styles.css';

export { ModalRoot } from './modal';
export { renderNode, renderChildren } from './render';
export { Icon, ICONS } from './icons';

/** The modal's stylesheet, injected once into the shadow root (or the page) by the host. */
export const MODAL_CSS: string = css;
