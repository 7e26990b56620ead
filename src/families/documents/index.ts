import { defineFamily, type Route } from '../../kernel/operation.ts';
import { utilsVerifyRoutes } from './utils-verify/operation.ts';
import { invoiceExtractRoutes } from './invoice-extract/operation.ts';
import { piiRedactRoutes } from './pii-redact/operation.ts';
import { schemaCleanupRoutes } from './schema-cleanup/operation.ts';
import { translateDocRoutes } from './translate-doc/operation.ts';
import { secExtractRoutes } from './sec-extract/operation.ts';
import { docConvertRoutes } from './doc-convert/operation.ts';
import { codeReviewBriefRoutes } from './code-review-brief/operation.ts';
import { invoiceOcrRoutes } from './invoice-ocr/operation.ts';
import { ebookRoutes } from './ebook/operation.ts';

const routes: Route[] = [
  ...invoiceOcrRoutes,
  ...secExtractRoutes,
  ...codeReviewBriefRoutes,
  ...docConvertRoutes,
  ...invoiceExtractRoutes,
  ...piiRedactRoutes,
  ...schemaCleanupRoutes,
  ...translateDocRoutes,
  ...utilsVerifyRoutes,
  ...ebookRoutes,
];

export const documentsFamily = defineFamily('documents', routes);
