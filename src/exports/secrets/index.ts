export { SecretBox } from './secret-box';
