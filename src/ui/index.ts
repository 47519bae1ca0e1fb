// What pages import: the renderer, the reply helper and the components.
export { html, renderFragment, renderPage, HtmlPage, PageCache, type Viewer } from './render.ts';
export { sendPage, sendStaticPage, staticPage, type StaticPage } from './send-page.ts';
export { FAVICON_PATH, ICON_PATH, STYLESHEET_PATH, stylesheetText, uiAssets } from './assets.ts';
export { Layout, type LayoutProps } from './components/layout.ts';
export { Table, type TableProps } from './components/table.ts';
export { Form, SearchForm, Button, CSRF_FIELD, type FormProps, type ButtonProps } from './components/form.ts';
export { TextField, RadioGroup, Select, CheckboxGroup, type Choice, type TextFieldProps, type RadioGroupProps, type SelectProps, type CheckboxGroupProps } from './components/fields.ts';
export { FileField, type FileFieldProps } from './components/fields.ts';
export { Time } from './components/time.ts';
export { Money } from './components/money.ts';
export { Notice } from './components/notice.ts';
export { QrCode, type QrCodeProps } from './components/qr-code.ts';
export { renderMail, oneLine, type MailContent, type RenderedMail } from './mail.ts';
export { StatusBadge, type StatusTone } from './components/status-badge.ts';
export { CopyButton, CopyField, ShareAddress, type CopyFieldProps, type ShareAddressProps } from './components/copy-field.ts';
export { badge, CANCELED_BADGE, CHECKOUT_KIND_NAMES, checkoutKindName, coinAmount, coinName, named, operationName, PAYMENT_FACT_NAMES, PAYMENT_STATUS_BADGES, PaymentBadge, SOURCE_NAMES, sourceName, type Badge } from './wording.ts';
export { Markdown, headingSlug, type MarkdownProps } from './markdown.ts';
