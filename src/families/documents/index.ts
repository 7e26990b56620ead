import { plannedFreeRoute, plannedOperation } from '../../kernel/route-kit/planned.ts';
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

const utility = (id: string, path: string, priceUsd: string, summary: string) =>
  plannedOperation({ id, method: 'POST', path, family: 'documents', priceUsd, summary, keyFamily: 'utils', signedMember: null, verifyPath: '/v1/utils/verify' });

const routes: Route[] = [
  ...invoiceOcrRoutes,
  ...secExtractRoutes,
  ...codeReviewBriefRoutes,
  ...docConvertRoutes,
  ...invoiceExtractRoutes,
  ...piiRedactRoutes,
  ...schemaCleanupRoutes,
  ...translateDocRoutes,
  plannedOperation({ id: 'ebook.download', method: 'GET', path: '/api/ebook/download', family: 'documents', priceUsd: '29.00', inputFrom: 'query', summary: 'Streams the full 121-page PDF after verified settlement.', keyFamily: null, signedMember: null }),

  ...utilsVerifyRoutes,
  plannedFreeRoute({ id: 'ebook.card', method: 'GET', path: '/api/ebook', family: 'documents', summary: 'Product card for the ebook.' }),
  plannedFreeRoute({ id: 'ebook.sample', method: 'GET', path: '/api/ebook/sample', family: 'documents', summary: 'Streams the sample PDF.' }),
];

export const documentsFamily = defineFamily('documents', routes);
