// `node --import tsx --import <recorder> load-for-model.ts [model id]`: imports the root entry,
// then (given a model id) chooses that model's tokenizer and counts one text with it.

import { ModelTokenizers } from '../../../src/budget/model-tokenizers.js';
import { createTiktokenTokenizer } from '../../../src/index.js';

const modelId = process.argv[2];
if (modelId !== undefined) {
  const o200k = createTiktokenTokenizer();
  const models = new ModelTokenizers(o200k);
  const { tokenizer } = await models.choose(modelId);
  process.stdout.write(`${tokenizer.name} ${await tokenizer.count('Hello, world!')}\n`);
  models.dispose();
  o200k.dispose();
}
