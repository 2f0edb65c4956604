-- The web app's language (issue 47): the one a user chose, a tag from vocabulary's LANGUAGES
-- (checked by the API's schema); null until they choose, when the app follows their browser.
ALTER TABLE `users` ADD `language` text;
