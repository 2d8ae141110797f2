/**
 * The one zod schema of the CCM's configuration, built from the settings registry (one field per setting,
 * each with the schema the registry gives it), plus the cross-field rules in `superRefine` so every bad
 * field is named. The cloud-config file's schema comes from the registry's file keys: known keys only, so a
 * typo is named instead of ignored.
 */
import { z } from 'zod';
import { settings, type SettingDefinition, type SettingKey } from './settings.ts';

type Shape = { readonly [K in SettingKey]: (typeof settings)[K]['schema'] };

function shapeOf(): Shape {
  return Object.fromEntries(Object.entries(settings).map(([key, def]) => [key, def.schema])) as unknown as Shape;
}

export const ConfigSchema = z.object(shapeOf()).superRefine((c, ctx) => {
  if (c.leaderElect && c.leaderElectRenewDeadline >= c.leaderElectLeaseDuration) {
    ctx.addIssue({ code: 'custom', path: ['leaderElectRenewDeadline'], message: 'must be less than the lease duration' });
  }
});

export type CcmConfig = z.output<typeof ConfigSchema>;

/** A nested strict object per dotted file key, every leaf optional. */
type FileTree = { [name: string]: FileTree | true };

function fileSchema(tree: FileTree): z.ZodType {
  const shape = Object.fromEntries(Object.entries(tree).map(([name, sub]) => [name, (sub === true ? z.unknown() : fileSchema(sub)).optional()]));
  return z.strictObject(shape);
}

function fileTree(defs: readonly SettingDefinition[]): FileTree {
  const root: FileTree = {};
  for (const def of defs) {
    const parts = def.file?.split('.') ?? [];
    let node = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = true;
      else node = (node[part] ??= {}) as FileTree;
    });
  }
  return root;
}

/** The cloud-config file: the registry's file keys only. */
export const CloudConfigFileSchema = fileSchema(fileTree(Object.values<SettingDefinition>(settings)));
