// /api/products: customers see the active catalogue; the owner sees and manages all of it.
import { Hono } from 'hono';
import { z } from 'zod';
import type { SignedInEnv } from '../../platform/context';
import { createProduct, listProducts, removeProduct, toProductJson, updateProduct } from './products';
import { jsonBody, pathParams } from '../../platform/validate';
import { productInputSchema, productListSchema, productRemovedSchema, productSchema } from './schemas';
import { isAtLeast } from '../../platform/vocabulary';
import { idSchema } from '../../platform/schemas/ids';
import { routeOperations } from '../accounts';
import { assertWithinActivationLimit, getSettings } from '../settings';

const op = routeOperations({ tag: 'Products', access: 'owner' });

const productId = z.object({ id: idSchema('Product id') });

const productsRoutes = new Hono<SignedInEnv>()
  .get(
    '/',
    op('listProducts', 'The catalogue (the owner sees inactive products too)', { 200: productListSchema }, { access: 'user' }),
    async (c) => {
      const rows = await listProducts(c.var.db, { includeInactive: isAtLeast(c.var.caller.role, 'owner') });
      return c.json(
        rows.map((p) => toProductJson(p, c.var.caller)),
        200,
      );
    },
  )
  .post(
    '/',
    op('createProduct', 'Add a product', { 201: productSchema }, { errors: [400, 409] }),
    jsonBody(productInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      assertWithinActivationLimit(await getSettings(c.env.KV), input.maxActivations);
      const product = await createProduct(c.var.db, input);
      return c.json(toProductJson(product), 201);
    },
  )
  .put(
    '/:id',
    op('updateProduct', 'Change a product', { 200: productSchema }, { errors: [400, 404, 409] }),
    pathParams(productId),
    jsonBody(productInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      assertWithinActivationLimit(await getSettings(c.env.KV), input.maxActivations);
      const product = await updateProduct(c.var.db, c.req.valid('param').id, input);
      return c.json(toProductJson(product), 200);
    },
  )
  .delete(
    '/:id',
    op('deleteProduct', 'Delete a product, or deactivate it when it has keys', { 200: productRemovedSchema }, { errors: [400, 404] }),
    pathParams(productId),
    async (c) => {
      const outcome = await removeProduct(c.var.db, c.req.valid('param').id);
      if (outcome.deleted) return c.json({ success: true, deleted: true, message: 'Product deleted' }, 200);
      return c.json(
        {
          success: true,
          deleted: false,
          deactivated: true,
          message: 'This product has license keys, so it was deactivated instead of deleted: its keys and sales history are kept.',
          product: toProductJson(outcome.product),
        },
        200,
      );
    },
  );

export const catalogMounts = [['/api/products', productsRoutes]] as const;
